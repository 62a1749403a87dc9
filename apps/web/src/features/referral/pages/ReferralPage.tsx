import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import { Box, Card, CardContent, Link, Skeleton, Stack, Typography } from '@mui/material';
import { REFERRAL_FIRST_LOAD_PCT, REFERRAL_LATER_LOAD_PCT } from '@pm/contracts';
import type { MouseEvent } from 'react';
import { Link as RouterLink } from 'react-router';
import { useEnvironment } from '../../../app/context.tsx';
import { Page } from '../../../components/ui/Page.tsx';
import { useToast } from '../../../components/ui/Toasts.tsx';
import { copyText } from '../../../lib/clipboard.ts';
import { useMyAccount } from '../../account/useMyAccount.ts';
import { inviteLinkFor } from '../inviteLink.ts';

export const COPIED_TEXT = 'Copied to clipboard';
const COPIED_TOAST_MS = 3_000;

/** Referral page: the invite link (click to copy) and how rewards work. */
export function ReferralPage() {
  const { issuer } = useEnvironment();
  const { data: account } = useMyAccount();
  const showToast = useToast();
  const link = account?.refcode ? inviteLinkFor(issuer, account.refcode) : null;

  const handleCopy = async (e: MouseEvent) => {
    e.preventDefault();
    if (!link) return;
    if (await copyText(link)) showToast(COPIED_TEXT, { autoHideMs: COPIED_TOAST_MS });
  };

  return (
    <Page title="Referral">
      <Card>
        <CardContent>
          <Stack spacing={2}>
            <Typography>
              Invite others and earn rewards: {REFERRAL_FIRST_LOAD_PCT}% of the first balance load of everyone
              who signs up with your link and {REFERRAL_LATER_LOAD_PCT}% of all their later loads, credited to
              your balance. Rewards appear on the{' '}
              <Link component={RouterLink} to="/payments">
                Payments
              </Link>{' '}
              page.
            </Typography>
            <Typography variant="subtitle2" color="text.secondary">
              Your invite link (click to copy)
            </Typography>
            {!account && <Skeleton variant="rounded" height={48} />}
            {account && !link && (
              <Typography color="text.secondary">Your referral code is not available yet.</Typography>
            )}
            {link && (
              <Box
                sx={{
                  display: 'flex',
                  alignItems: 'center',
                  gap: 1,
                  p: 1.5,
                  border: 1,
                  borderColor: 'divider',
                  borderRadius: 1,
                  bgcolor: 'grey.50',
                  overflowWrap: 'anywhere',
                }}
              >
                <Link
                  href={link}
                  onClick={handleCopy}
                  data-testid="invite-link"
                  sx={{ flexGrow: 1, fontFamily: 'monospace' }}
                >
                  {link}
                </Link>
                <ContentCopyIcon color="action" fontSize="small" />
              </Box>
            )}
          </Stack>
        </CardContent>
      </Card>
    </Page>
  );
}
