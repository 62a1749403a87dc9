import AndroidIcon from '@mui/icons-material/Android';
import ShieldIcon from '@mui/icons-material/Shield';
import { Box } from '@mui/material';
import type { TConn } from '@pm/contracts';
import { cleanBand, connLabel } from '../../../lib/format/agent.ts';

/** The clean score 1-10 on a shield, green for 6-10 and orange for 1-5 (rules §2). */
export function CleanScore({ stars }: { stars: number }) {
  const band = cleanBand(stars);
  return (
    <Box
      component="span"
      role="img"
      aria-label={`Clean score ${stars} of 10`}
      data-band={band}
      sx={{ position: 'relative', display: 'inline-flex', verticalAlign: 'middle', width: 26, height: 26 }}
    >
      <ShieldIcon sx={{ fontSize: 26, color: band === 'high' ? 'success.main' : 'warning.main' }} />
      <Box
        component="span"
        aria-hidden
        sx={{
          position: 'absolute',
          inset: 0,
          display: 'flex',
          alignItems: 'center',
          justifyContent: 'center',
          pb: '2px',
          color: 'common.white',
          fontSize: 11,
          fontWeight: 700,
        }}
      >
        {stars}
      </Box>
    </Box>
  );
}

/** "Wifi" or "Cell", with an Android icon when the agent runs on an Android device. */
export function ConnLabel({ conn, dev }: { conn: TConn; dev: string }) {
  return (
    <Box
      component="span"
      sx={{ display: 'inline-flex', alignItems: 'center', gap: 0.5, whiteSpace: 'nowrap' }}
    >
      {connLabel(conn)}
      {dev === 'android' && (
        <AndroidIcon titleAccess="Android device" sx={{ fontSize: 18, color: '#3ddc84' }} />
      )}
    </Box>
  );
}
