import { Chip, FormControl, InputLabel, NativeSelect, OutlinedInput, Stack } from '@mui/material';
import { STATIC_CHIP_COUNTRIES } from '@pm/contracts';
import { useEffect, useState } from 'react';
import { InputField } from '../../../components/ui/InputField.tsx';
import { countryName } from '../../../lib/countries.ts';
import type { StaticCountry, StaticFilter } from '../rules.ts';

/** Text filters wait this long after the last key before they apply. */
const TYPING_MS = 600;

/** The quick countries US, CA, GB, AU, DE, FR as chips (rules §2). */
export function StaticCountryChips({
  cc,
  onChange,
}: {
  cc: StaticCountry;
  onChange: (cc: StaticCountry) => void;
}) {
  return (
    <Stack direction="row" sx={{ flexWrap: 'wrap', gap: 1 }} role="group" aria-label="Country">
      {STATIC_CHIP_COUNTRIES.map((c) => (
        <Chip
          key={c}
          label={countryName(c)}
          color={c === cc ? 'primary' : 'default'}
          variant={c === cc ? 'filled' : 'outlined'}
          aria-pressed={c === cc}
          onClick={() => onChange(c)}
        />
      ))}
    </Stack>
  );
}

/** The ip, city, isp and conn filters of the static list (rules §2). */
export function StaticFilterFields({
  filter,
  onChange,
  isMobile,
}: {
  filter: StaticFilter;
  onChange: (patch: Partial<StaticFilter>) => void;
  isMobile: boolean;
}) {
  return (
    <Stack direction={isMobile ? 'column' : 'row'} spacing={1.5}>
      <TypedFilter label="IP" value={filter.ip} onCommit={(ip) => onChange({ ip })} />
      <TypedFilter label="City" value={filter.city} onCommit={(city) => onChange({ city })} />
      <TypedFilter label="ISP" value={filter.isp} onCommit={(isp) => onChange({ isp })} />
      {/* The browser's own select: Material UI's menu select would load Menu, Popover and Modal. */}
      <FormControl size="small" sx={{ minWidth: 140 }}>
        <InputLabel htmlFor="static-conn" shrink>
          Connection
        </InputLabel>
        <NativeSelect
          value={filter.conn}
          onChange={(e) => onChange({ conn: e.target.value as StaticFilter['conn'] })}
          input={<OutlinedInput label="Connection" notched />}
          inputProps={{ id: 'static-conn' }}
        >
          <option value="any">Any</option>
          <option value="wifi">Wifi</option>
          <option value="cell">Cell</option>
        </NativeSelect>
      </FormControl>
    </Stack>
  );
}

/** A text filter that applies once typing pauses. */
function TypedFilter({
  label,
  value,
  onCommit,
}: {
  label: string;
  value: string;
  onCommit: (v: string) => void;
}) {
  const [draft, setDraft] = useState(value);
  useEffect(() => {
    if (draft === value) return;
    const timer = setTimeout(() => onCommit(draft), TYPING_MS);
    return () => clearTimeout(timer);
  }, [draft, value, onCommit]);
  return (
    <InputField
      size="small"
      label={label}
      value={draft}
      onChange={(e) => setDraft(e.target.value)}
      htmlInput={{ maxLength: 100 }}
    />
  );
}
