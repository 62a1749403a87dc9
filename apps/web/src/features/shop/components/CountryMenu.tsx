import { ListSubheader, Menu, MenuItem, Typography } from '@mui/material';
import { SHOP_CHIP_COUNTRIES } from '@pm/contracts';
import { CONTINENTS, continentOf, countryName, truncateName } from '../../../lib/countries.ts';

interface CountryMenuProps {
  anchorEl: HTMLElement | null;
  cc: string;
  totals: Record<string, number> | undefined;
  onChoose: (cc: string) => void;
  onClose: () => void;
}

/** The More menu: every other country with proxies, by continent, names cut at 15 characters (rules §2). */
export function CountryMenu({ anchorEl, cc, totals, onChoose, onClose }: CountryMenuProps) {
  const more = Object.entries(totals ?? {})
    .filter(([code, n]) => n > 0 && !(SHOP_CHIP_COUNTRIES as readonly string[]).includes(code))
    .sort(([a], [b]) => countryName(a).localeCompare(countryName(b)));
  return (
    <Menu
      anchorEl={anchorEl}
      open={anchorEl !== null}
      onClose={onClose}
      slotProps={{ paper: { sx: { maxHeight: 420, minWidth: 220 } } }}
    >
      {more.length === 0 && <MenuItem disabled>No other countries yet</MenuItem>}
      {[...CONTINENTS, 'Other'].flatMap((continent) => {
        const rows = more.filter(([code]) => (continentOf(code) ?? 'Other') === continent);
        if (rows.length === 0) return [];
        return [
          <ListSubheader key={continent}>{continent}</ListSubheader>,
          ...rows.map(([code, n]) => (
            <MenuItem
              key={code}
              selected={code === cc}
              onClick={() => onChoose(code)}
              title={countryName(code)}
            >
              <Typography variant="body2" sx={{ flex: 1, mr: 2 }}>
                {truncateName(countryName(code))}
              </Typography>
              <Typography variant="body2" color="text.secondary">
                {n}
              </Typography>
            </MenuItem>
          )),
        ];
      })}
    </Menu>
  );
}
