import { Stack } from '@mui/material';
import { useState } from 'react';
import { InputField } from '../../../components/ui/InputField.tsx';
import { type DateRange, type DayBounds, isDay, isWithin, withFirst, withLast } from '../dateRange.ts';

/**
 * First and last date pickers: the browser's own date inputs (no date-picker library in the bundle),
 * limited to the bounds; moving one past the other moves the other (rules §5).
 */
export function DateRangeFields({
  range,
  bounds,
  onChange,
  isMobile,
}: {
  range: DateRange;
  bounds: DayBounds;
  onChange: (range: DateRange) => void;
  isMobile: boolean;
}) {
  return (
    <Stack direction="row" spacing={1.5} data-testid="payments-dates">
      <DateField
        label="First date"
        value={range.first}
        bounds={bounds}
        isMobile={isMobile}
        onCommit={(day) => onChange(withFirst(range, day, bounds))}
      />
      <DateField
        label="Last date"
        value={range.last}
        bounds={bounds}
        isMobile={isMobile}
        onCommit={(day) => onChange(withLast(range, day, bounds))}
      />
    </Stack>
  );
}

/**
 * One date input. A day typed outside the bounds (also on the way, as a year typed digit by digit
 * passes through 0002 and 0020) stays a draft until the field loses focus, then moves into the bounds.
 */
function DateField({
  label,
  value,
  bounds,
  isMobile,
  onCommit,
}: {
  label: string;
  value: string;
  bounds: DayBounds;
  isMobile: boolean;
  onCommit: (day: string) => void;
}) {
  const [draft, setDraft] = useState<string | null>(null);
  const handleChange = (day: string) => {
    if (isWithin(day, bounds)) {
      setDraft(null);
      onCommit(day);
    } else {
      setDraft(day);
    }
  };
  const handleBlur = () => {
    if (draft === null) return;
    if (isDay(draft)) onCommit(draft);
    setDraft(null);
  };
  return (
    <InputField
      type="date"
      size="small"
      label={label}
      value={draft ?? value}
      onChange={(e) => handleChange(e.target.value)}
      onBlur={handleBlur}
      fullWidth={isMobile}
      shrinkLabel
      htmlInput={{ min: bounds.min, max: bounds.max, 'aria-label': label }}
      sx={isMobile ? undefined : { width: 180 }}
    />
  );
}
