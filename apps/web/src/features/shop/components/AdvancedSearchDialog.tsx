import {
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  MenuItem,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import { SEARCH_RADII_MI } from '@pm/contracts';
import { useState } from 'react';
import { useApi } from '../../../app/context.tsx';
import { countryName } from '../../../lib/countries.ts';
import type { ShopFilter } from '../filters.ts';
import { postalCodeProblem } from '../queries.ts';

interface AdvancedSearchDialogProps {
  open: boolean;
  filter: ShopFilter;
  onApply: (filter: ShopFilter) => void;
  onClose: () => void;
}

/**
 * Advanced Search (rules §2, 5): a centre ZIP/postal code and a radius in miles. Offered only for the
 * countries of rules §5; the search counts only with both set; the code is upper-cased when applied.
 */
export function AdvancedSearchDialog({ open, filter, onApply, onClose }: AdvancedSearchDialogProps) {
  return (
    <Dialog open={open} onClose={onClose} aria-labelledby="advanced-search-title" maxWidth="xs" fullWidth>
      {open && <AdvancedSearchForm filter={filter} onApply={onApply} onClose={onClose} />}
    </Dialog>
  );
}

function AdvancedSearchForm({ filter, onApply, onClose }: Omit<AdvancedSearchDialogProps, 'open'>) {
  const api = useApi();
  const [zip, setZip] = useState(filter.geozip);
  const [radius, setRadius] = useState(filter.georad);
  const [zipError, setZipError] = useState<string | null>(null);
  const [isChecking, setChecking] = useState(false);
  // The code is checked before it applies: an unknown one is this field's error, the dialog stays.
  const apply = async (geozip: string, georad: number) => {
    const next = { ...filter, geozip: geozip.trim().toUpperCase(), georad };
    setChecking(true);
    const problem = await postalCodeProblem(api, next).finally(() => setChecking(false));
    if (problem) return setZipError(problem);
    onApply(next);
    onClose();
  };
  return (
    <>
      <DialogTitle id="advanced-search-title">Advanced Search</DialogTitle>
      <DialogContent>
        <Stack spacing={2} sx={{ pt: 1 }}>
          <Typography variant="body2" color="text.secondary">
            Proxies within a distance of a postal code in {countryName(filter.cc)}.
          </Typography>
          <TextField
            label="Center ZIP/Postal code"
            value={zip}
            onChange={(e) => {
              setZip(e.target.value);
              setZipError(null);
            }}
            error={zipError !== null}
            helperText={zipError ?? ' '}
            slotProps={{ htmlInput: { maxLength: 12, autoCapitalize: 'characters' } }}
          />
          <TextField select label="Radius" value={radius} onChange={(e) => setRadius(Number(e.target.value))}>
            {SEARCH_RADII_MI.map((r) => (
              <MenuItem key={r} value={r}>
                {r === 0 ? 'None' : `${r} miles`}
              </MenuItem>
            ))}
          </TextField>
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={() => void apply('', 0)}>Reset</Button>
        <Button variant="contained" disabled={isChecking} onClick={() => void apply(zip, radius)}>
          Apply
        </Button>
      </DialogActions>
    </>
  );
}
