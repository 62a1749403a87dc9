import { Autocomplete, FormControl, InputLabel, OutlinedInput } from '@mui/material';

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
      // TextField's parts rather than TextField: it carries the Select variant, whose Menu, Popover
      // and Modal would load with every screen that has a picker.
      renderInput={(params) => (
        <FormControl fullWidth={params.fullWidth} size={params.size} disabled={params.disabled}>
          <InputLabel {...params.slotProps.inputLabel} htmlFor={params.id} shrink>
            {label}
          </InputLabel>
          <OutlinedInput
            {...params.slotProps.input}
            id={params.id}
            label={label}
            notched
            placeholder="Any"
            inputProps={params.slotProps.htmlInput}
          />
        </FormControl>
      )}
    />
  );
}
