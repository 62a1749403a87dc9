import ExpandMoreIcon from '@mui/icons-material/ExpandMore';
import { Box, Button, Chip, Stack } from '@mui/material';
import { SHOP_CHIP_COUNTRIES } from '@pm/contracts';
import { useQuery } from '@tanstack/react-query';
import { Suspense, useState } from 'react';
import { useApi } from '../../../app/context.tsx';
import { countryName } from '../../../lib/countries.ts';
import { lazyNamed } from '../../../lib/lazyNamed.ts';
import { countryTotalsQuery } from '../queries.ts';

// The menu's code (and Material UI's popover) loads on the first click.
const CountryMenu = lazyNamed(() => import('./CountryMenu.tsx'), 'CountryMenu');

/**
 * The country picker (rules §2): chips US, GB, AE, CA, IT and CN with their proxy counts, the chosen
 * country as a chip of its own when it is another one, and a More menu of every country with proxies,
 * grouped by continent, names cut at 15 characters.
 */
export function CountryChips({ cc, onChange }: { cc: string; onChange: (cc: string) => void }) {
  const api = useApi();
  const { data: totals } = useQuery(countryTotalsQuery(api));
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const [hasMenu, setHasMenu] = useState(false);
  const chips: string[] = [...SHOP_CHIP_COUNTRIES];
  if (!chips.includes(cc)) chips.push(cc);

  const choose = (code: string) => {
    setAnchor(null);
    onChange(code);
  };

  return (
    <Stack
      direction="row"
      spacing={1}
      aria-label="Countries"
      role="group"
      useFlexGap
      sx={{ alignItems: 'center', flexWrap: 'wrap', rowGap: 1 }}
    >
      {chips.map((code) => (
        <Chip
          key={code}
          title={countryName(code)}
          aria-pressed={code === cc}
          color={code === cc ? 'primary' : 'default'}
          variant={code === cc ? 'filled' : 'outlined'}
          onClick={() => onChange(code)}
          label={
            <span>
              {code}{' '}
              <Box component="span" data-testid={`count-${code}`} sx={{ fontWeight: 700, opacity: 0.8 }}>
                {totals ? (totals[code] ?? 0) : '…'}
              </Box>
            </span>
          }
        />
      ))}
      <Button
        size="small"
        endIcon={<ExpandMoreIcon />}
        aria-haspopup="menu"
        onClick={(e) => {
          setHasMenu(true);
          setAnchor(e.currentTarget);
        }}
      >
        More
      </Button>
      <Suspense fallback={null}>
        {hasMenu && (
          <CountryMenu
            anchorEl={anchor}
            cc={cc}
            totals={totals}
            onChoose={choose}
            onClose={() => setAnchor(null)}
          />
        )}
      </Suspense>
    </Stack>
  );
}
