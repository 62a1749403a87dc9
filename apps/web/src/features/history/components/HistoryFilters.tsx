import SearchIcon from '@mui/icons-material/Search';
import { Button, Stack } from '@mui/material';
import { useState } from 'react';
import { InputField } from '../../../components/ui/InputField.tsx';
import { DateRangeFields } from '../../payments/components/DateRangeFields.tsx';
import type { DateRange, DayBounds } from '../../payments/dateRange.ts';
import { useSearchLockout } from '../useSearchLockout.ts';

interface HistoryFiltersProps {
  range: DateRange;
  bounds: DayBounds;
  onRangeChange: (range: DateRange) => void;
  onSearch: (text: string) => void;
  isMobile: boolean;
}

/** The history's search box (IP or note; its button rests 3 s after a click) and its date pickers. */
export function HistoryFilters({ range, bounds, onRangeChange, onSearch, isMobile }: HistoryFiltersProps) {
  const [text, setText] = useState('');
  const { isLocked, tryLock } = useSearchLockout();
  return (
    <Stack
      direction={isMobile ? 'column' : 'row'}
      spacing={1.5}
      sx={{ alignItems: isMobile ? 'stretch' : 'center' }}
    >
      <Stack
        component="form"
        role="search"
        direction="row"
        spacing={1}
        onSubmit={(e) => {
          e.preventDefault();
          if (tryLock()) onSearch(text.trim());
        }}
        sx={{ flexGrow: isMobile ? 0 : 1, maxWidth: isMobile ? 'none' : 420 }}
      >
        <InputField
          size="small"
          placeholder="IP or note"
          value={text}
          onChange={(e) => setText(e.target.value)}
          fullWidth
          htmlInput={{ 'aria-label': 'Search history', maxLength: 100 }}
        />
        <Button type="submit" variant="contained" disabled={isLocked} startIcon={<SearchIcon />}>
          Search
        </Button>
      </Stack>
      <DateRangeFields range={range} bounds={bounds} onChange={onRangeChange} isMobile={isMobile} />
    </Stack>
  );
}
