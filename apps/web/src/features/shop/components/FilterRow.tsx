import { Button, MenuItem, Paper, Stack, TextField } from '@mui/material';
import type { TSegments } from '@pm/contracts';
import { useEffect, useRef, useState } from 'react';
import {
  type AgeFilter,
  type ConnFilter,
  emptyFilter,
  ipPrefixProblem,
  type LeaseTypeFilter,
  type ShopFilter,
} from '../filters.ts';
import { SegmentPicker } from './SegmentPicker.tsx';

/** The IP prefix reaches the list this long after the last keystroke (rules §9). */
export const IP_FILTER_DEBOUNCE_MS = 1_000;

/** A select's choices: the value and the text shown. */
type Options<T extends string> = ReadonlyArray<readonly [T, string]>;

const STAR_OPTIONS: Options<string> = [
  ['any', 'Any'],
  ...Array.from({ length: 10 }, (_, i) => [String(i + 1), `${i + 1} or more`] as const),
];

const TYPE_OPTIONS: Options<LeaseTypeFilter> = [
  ['any', 'Any'],
  ['private', 'Private'],
  ['shared', 'Shared'],
];

const CONN_OPTIONS: Options<ConnFilter> = [
  ['any', 'Any'],
  ['wifi', 'Wifi'],
  ['cell', 'Cell'],
];

const AGE_OPTIONS: Options<AgeFilter> = [
  ['any', 'Any'],
  ['new', 'New'],
  ['old', 'Not new'],
];

const NO_SEGMENTS: TSegments = { isps: [], zips: [], cities: [], regions: [] };

interface FilterRowProps {
  filter: ShopFilter;
  segments: TSegments | undefined;
  onChange: (filter: ShopFilter) => void;
}

/** The desktop filter row (rules §2): IP prefix, region, city, ZIP, ISP, score, type, connection, age. */
export function FilterRow({ filter, segments = NO_SEGMENTS, onChange }: FilterRowProps) {
  const set = <K extends keyof ShopFilter>(key: K, value: ShopFilter[K]) =>
    onChange({ ...filter, [key]: value });
  return (
    <Paper variant="outlined" sx={{ p: 1.5, mb: 2 }} data-testid="filter-row">
      <Stack direction="row" sx={{ flexWrap: 'wrap', gap: 1.5, alignItems: 'flex-start' }}>
        <IpPrefixField value={filter.ip} onCommit={(ip) => set('ip', ip)} />
        <SegmentPicker
          label="Region"
          value={filter.reg}
          options={segments.regions}
          onChange={(v) => set('reg', v)}
        />
        <SegmentPicker
          label="City"
          value={filter.city}
          options={segments.cities}
          onChange={(v) => set('city', v)}
        />
        <SegmentPicker
          label="ZIP"
          value={filter.zip}
          options={segments.zips}
          onChange={(v) => set('zip', v)}
        />
        <SegmentPicker
          label="ISP"
          value={filter.isp}
          options={segments.isps}
          onChange={(v) => set('isp', v)}
        />
        <SelectField
          label="Clean"
          value={filter.stars === null ? 'any' : String(filter.stars)}
          options={STAR_OPTIONS}
          onChange={(v) => set('stars', v === 'any' ? null : Number(v))}
        />
        <SelectField
          label="Shared"
          value={filter.type}
          options={TYPE_OPTIONS}
          onChange={(v) => set('type', v)}
        />
        <SelectField
          label="Conn"
          value={filter.conn}
          options={CONN_OPTIONS}
          onChange={(v) => set('conn', v)}
        />
        <SelectField label="New" value={filter.age} options={AGE_OPTIONS} onChange={(v) => set('age', v)} />
        <Button onClick={() => onChange(emptyFilter(filter.cc))} sx={{ alignSelf: 'center' }}>
          Clear filters
        </Button>
      </Stack>
    </Paper>
  );
}

/** The IP prefix, applied 1 s after typing stops; a part rules §5 ignores is flagged under the field. */
function IpPrefixField({ value, onCommit }: { value: string; onCommit: (ip: string) => void }) {
  const [text, setText] = useState(value);
  const commit = useRef(onCommit);
  commit.current = onCommit;
  // A filter changed elsewhere (Clear filters, the address) shows here.
  useEffect(() => setText(value), [value]);
  useEffect(() => {
    if (text === value) return;
    const timer = setTimeout(() => commit.current(text.trim()), IP_FILTER_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [text, value]);
  const problem = ipPrefixProblem(text);
  return (
    <TextField
      size="small"
      label="IP"
      placeholder="e.g. 198.51"
      value={text}
      onChange={(e) => setText(e.target.value)}
      error={problem !== null}
      helperText={problem ?? undefined}
      sx={{ width: 150 }}
      slotProps={{
        inputLabel: { shrink: true },
        htmlInput: { 'aria-label': 'IP prefix', inputMode: 'decimal' },
      }}
    />
  );
}

function SelectField<T extends string>({
  label,
  value,
  options,
  onChange,
}: {
  label: string;
  value: T;
  options: Options<T>;
  onChange: (value: T) => void;
}) {
  return (
    <TextField
      select
      size="small"
      label={label}
      value={value}
      // A select only yields one of its options' values.
      onChange={(e) => onChange(e.target.value as T)}
      sx={{ width: 130 }}
    >
      {options.map(([v, text]) => (
        <MenuItem key={v} value={v}>
          {text}
        </MenuItem>
      ))}
    </TextField>
  );
}
