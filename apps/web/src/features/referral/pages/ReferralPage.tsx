import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import { Box, Card, CardContent, Link, Skeleton, Stack, Typography } from '@mui/material';
import { REFERRAL_FIRST_LOAD_PCT, REFERRAL_LATER_LOAD_PCT } from '@pm/contracts';
import { formatUsd } from '@pm/money';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { MouseEvent } from 'react';
import { Link as RouterLink } from 'react-router';
import { useApi, useEnvironment } from '../../../app/context.tsx';
import { DetailList } from '../../../components/ui/DetailList.tsx';
import { Page } from '../../../components/ui/Page.tsx';
import { useToast } from '../../../components/ui/Toasts.tsx';
import { copyText } from '../../../lib/clipboard.ts';
import { useMyAccount } from '../../account/useMyAccount.ts';
import { inviteLinkFor } from '../inviteLink.ts';
import { referralQuery } from '../queries.ts';

export const COPIED_TEXT = 'Copied to clipboard';
const COPIED_TOAST_MS = 3_000;

/** Referral page: the invite link (click to copy), how rewards work, who signed up with it and what it earned. */
export function ReferralPage() {
  const { issuer } = useEnvironment();
  const { data: account } = useMyAccount();
  const api = useApi();
  const queryClient = useQueryClient();
  const { data: referral } = useQuery(referralQuery(api, queryClient));
  const showToast = useToast();
  // The server's link (an operator may point it elsewhere); the sign-up page's until it answers.
  const link = referral?.inviteUrl ?? (account?.refcode ? inviteLinkFor(issuer, account.refcode) : null);
  const firstPct = referral?.firstLoadPct ?? REFERRAL_FIRST_LOAD_PCT;
  const laterPct = referral?.laterLoadPct ?? REFERRAL_LATER_LOAD_PCT;

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
              Invite others and earn rewards: {firstPct}% of the first balance load of everyone who signs up
              with your link and {laterPct}% of all their later loads, credited to your balance. Rewards
              appear on the{' '}
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
              <Typography color="text.secondary">
                Your invite link is being prepared: reload this page in a moment.
              </Typography>
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
            {referral ? (
              <DetailList
                testId="referral-stats"
                items={[
                  {
                    label: 'People invited',
                    value: <span data-testid="referral-invited">{referral.invitedCount}</span>,
                  },
                  {
                    label: 'Rewards earned',
                    value: <span data-testid="referral-rewards">{formatUsd(referral.rewardsC)}</span>,
                  },
                ]}
              />
            ) : (
              <Skeleton variant="rounded" height={44} />
            )}
          </Stack>
        </CardContent>
      </Card>
    </Page>
  );
}
