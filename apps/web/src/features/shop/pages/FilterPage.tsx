import {
  Box,
  Button,
  CircularProgress,
  FormControl,
  FormControlLabel,
  FormLabel,
  Radio,
  RadioGroup,
  Slider,
  Stack,
  Typography,
} from '@mui/material';
import { MAX_SEARCH_RADIUS_MI } from '@pm/contracts';
import { useQuery } from '@tanstack/react-query';
import { type MouseEvent, useEffect, useState } from 'react';
import { Link as RouterLink, useLocation, useNavigate } from 'react-router';
import { useApi } from '../../../app/context.tsx';
import { FILTER_RESET_STATE_KEY } from '../../../app/layout/MobileTopBar.tsx';
import { InputField } from '../../../components/ui/InputField.tsx';
import { Page } from '../../../components/ui/Page.tsx';
import { countryName } from '../../../lib/countries.ts';
import { SegmentPicker } from '../components/SegmentPicker.tsx';
import {
  emptyFilter,
  filterPageDraft,
  isRadiusActive,
  isRadiusSearchCountry,
  resetFilterDraft,
  type ShopFilter,
  toParams,
} from '../filters.ts';
import { agentSegmentsQuery, postalCodeProblem } from '../queries.ts';

const RADIUS_MARKS = Array.from({ length: MAX_SEARCH_RADIUS_MI / 10 + 1 }, (_, i) => ({
  value: i * 10,
  label: i % 5 === 0 ? String(i * 10) : '',
}));

/**
 * `/filter` (mobile, rules §2): region, city and ISP pickers, type, cleanliness, connection and age,
 * and the advanced options; Apply Filter goes to the shop with them. The top bar's Reset clears them.
 */
export function FilterPage() {
  const api = useApi();
  const location = useLocation();
  const navigate = useNavigate();
  const [zipError, setZipError] = useState<string | null>(null);
  const [draft, setDraft] = useState<ShopFilter>(() => filterPageDraft(new URLSearchParams(location.search)));
  const [isAdvancedShown, setAdvancedShown] = useState(() => draft.geozip !== '' || draft.georad > 0);
  const resetAt = (location.state as Record<string, unknown> | null)?.[FILTER_RESET_STATE_KEY];
  useEffect(() => {
    if (resetAt !== undefined) setDraft((d) => resetFilterDraft(d.cc));
  }, [resetAt]);

  // The option lists are those of the country alone, so every choice stays reachable.
  const segments = useQuery(agentSegmentsQuery(api, emptyFilter(draft.cc)));
  const set = <K extends keyof ShopFilter>(key: K, value: ShopFilter[K]) =>
    setDraft((d) => ({ ...d, [key]: value }));
  const applied = toParams({ ...draft, geozip: draft.geozip.trim().toUpperCase() }).toString();
  const target = `/shop${applied ? `?${applied}` : ''}`;
  // A radius search's code is checked first: an unknown one is the field's error, and the page stays.
  const checkThenApply = async () => {
    const problem = await postalCodeProblem(api, draft);
    if (problem) {
      setAdvancedShown(true);
      setZipError(problem);
    } else void navigate(target);
  };

  return (
    <Page title="Filter">
      {segments.isPending ? (
        <Box sx={{ display: 'flex', justifyContent: 'center', py: 6 }}>
          <CircularProgress aria-label="Loading filter options" />
        </Box>
      ) : (
        <Stack spacing={2.5}>
          <Typography variant="body2" color="text.secondary">
            Proxies in {countryName(draft.cc)}
          </Typography>
          <SegmentPicker
            fullWidth
            size="medium"
            label="Region"
            value={draft.reg}
            options={segments.data?.regions ?? []}
            onChange={(v) => set('reg', v)}
          />
          <SegmentPicker
            fullWidth
            size="medium"
            label="City"
            value={draft.city}
            options={segments.data?.cities ?? []}
            onChange={(v) => set('city', v)}
          />
          <SegmentPicker
            fullWidth
            size="medium"
            label="ISP"
            value={draft.isp}
            options={segments.data?.isps ?? []}
            onChange={(v) => set('isp', v)}
          />
          <Choice
            label="Type"
            value={draft.type}
            options={[
              ['any', 'Any'],
              ['private', 'Private'],
              ['shared', 'Shared'],
            ]}
            onChange={(v) => set('type', v)}
          />
          <Box>
            <Typography variant="body2" color="text.secondary" id="cleanliness-label">
              Cleanliness: {draft.stars === null || draft.stars <= 1 ? 'Any' : `${draft.stars} or more`}
            </Typography>
            <Slider
              aria-labelledby="cleanliness-label"
              min={1}
              max={10}
              step={1}
              marks
              valueLabelDisplay="auto"
              value={draft.stars ?? 1}
              // 1 is "Any", kept as a choice so the slider does not jump back to its default of 6.
              onChange={(_, v) => set('stars', v as number)}
            />
          </Box>
          <Choice
            label="Connection"
            value={draft.conn}
            options={[
              ['any', 'Any'],
              ['wifi', 'WiFi'],
              ['cell', 'Cell'],
            ]}
            onChange={(v) => set('conn', v)}
          />
          <Choice
            label="Age"
            value={draft.age}
            options={[
              ['any', 'Any'],
              ['new', 'New'],
              ['old', 'Old'],
            ]}
            onChange={(v) => set('age', v)}
          />
          {isRadiusSearchCountry(draft.cc) && (
            <Box>
              <Button onClick={() => setAdvancedShown((shown) => !shown)} sx={{ px: 0 }}>
                {isAdvancedShown ? 'Hide advanced options' : 'Show advanced options'}
              </Button>
              {isAdvancedShown && (
                <Stack spacing={2} sx={{ mt: 1 }}>
                  <InputField
                    label="Center ZIP/Postal"
                    value={draft.geozip}
                    onChange={(e) => {
                      set('geozip', e.target.value);
                      setZipError(null);
                    }}
                    error={zipError !== null}
                    helperText={zipError ?? undefined}
                    htmlInput={{ maxLength: 12, autoCapitalize: 'characters' }}
                  />
                  <Box>
                    <Typography variant="body2" color="text.secondary" id="radius-label">
                      Search radius (mi)
                    </Typography>
                    <Slider
                      aria-labelledby="radius-label"
                      min={0}
                      max={MAX_SEARCH_RADIUS_MI}
                      step={10}
                      marks={RADIUS_MARKS}
                      valueLabelDisplay="auto"
                      value={draft.georad}
                      onChange={(_, v) => set('georad', v as number)}
                    />
                  </Box>
                </Stack>
              )}
            </Box>
          )}
          <Button
            component={RouterLink}
            to={target}
            onClick={(e: MouseEvent) => {
              if (!isRadiusActive(draft)) return;
              e.preventDefault();
              void checkThenApply();
            }}
            variant="contained"
            size="large"
          >
            Apply Filter
          </Button>
        </Stack>
      )}
    </Page>
  );
}

function Choice<T extends string>({
  label,
  value,
  options,
  onChange,
}: {
  label: string;
  value: T;
  options: ReadonlyArray<readonly [T, string]>;
  onChange: (value: T) => void;
}) {
  return (
    <FormControl>
      <FormLabel sx={{ typography: 'body2' }}>{label}</FormLabel>
      <RadioGroup row value={value} onChange={(_, v) => onChange(v as T)} aria-label={label}>
        {options.map(([v, text]) => (
          <FormControlLabel key={v} value={v} control={<Radio size="small" />} label={text} />
        ))}
      </RadioGroup>
    </FormControl>
  );
}
