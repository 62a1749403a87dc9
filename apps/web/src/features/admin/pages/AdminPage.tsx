import { Box, Typography } from '@mui/material';
import { isStaff } from '@pm/contracts';
import { Suspense } from 'react';
import { useSession } from '../../../app/context.tsx';
import { lazyNamed } from '../../../lib/lazyNamed.ts';

export const ACCESS_DENIED_TEXT = 'ACCESS DENIED';
/** The staff screens are their own chunk: a customer's ACCESS DENIED visit downloads none of them. */
const AdminArea = lazyNamed(() => import('./AdminArea.tsx'), 'AdminArea');

/**
 * Admin area (/bigadmin). Access needs read:users and update:accounts in the access token's
 * permissions; the API enforces the same on every admin call.
 */
export function AdminPage() {
  const session = useSession();
  if (!isStaff(session.getPermissions())) {
    return (
      <Box sx={{ py: 8, textAlign: 'center' }}>
        <Typography
          variant="h4"
          component="h1"
          color="error"
          data-testid="access-denied"
          sx={{ fontWeight: 700 }}
        >
          {ACCESS_DENIED_TEXT}
        </Typography>
      </Box>
    );
  }
  return (
    <Suspense fallback={null}>
      <AdminArea />
    </Suspense>
  );
}
