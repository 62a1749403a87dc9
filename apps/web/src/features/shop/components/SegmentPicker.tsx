import { Autocomplete, TextField } from '@mui/material';

interface SegmentPickerProps {
  label: string;
  /** The current value; '' is any. */
  value: string;
  options: readonly string[];
  onChange: (value: string) => void;
  size?: 'small' | 'medium';
  fullWidth?: boolean;
}

/** A region, city, ZIP or ISP picker over the list's option lists, with 'Any' as the empty choice. */
export function SegmentPicker({
  label,
  value,
  options,
  onChange,
  size = 'small',
  fullWidth,
}: SegmentPickerProps) {
  // The current value stays pickable even when the server's lists no longer include it.
  const all = value !== '' && !options.includes(value) ? [value, ...options] : options;
  return (
    <Autocomplete
      size={size}
      options={all}
      value={value === '' ? null : value}
      onChange={(_, next) => onChange(next ?? '')}
      fullWidth
      sx={fullWidth ? undefined : { width: 170 }}
      renderInput={(params) => (
        <TextField
          {...params}
          label={label}
          placeholder="Any"
          slotProps={{ ...params.slotProps, inputLabel: { ...params.slotProps.inputLabel, shrink: true } }}
        />
      )}
    />
  );
}
