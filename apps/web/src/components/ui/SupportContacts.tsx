import ChatIcon from '@mui/icons-material/Chat';
import EmailIcon from '@mui/icons-material/Email';
import { Link, Stack, Typography } from '@mui/material';

interface SupportContactsProps {
  email: string;
  messenger: string;
  messengerUrl: string;
}

/** Support e-mail and messenger contact, as shown on the maintenance and error screens. */
export function SupportContacts({ email, messenger, messengerUrl }: SupportContactsProps) {
  return (
    <Stack spacing={1} sx={{ alignItems: 'center' }} data-testid="support-contacts">
      <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
        <EmailIcon fontSize="small" color="action" />
        <Link href={`mailto:${email}`}>{email}</Link>
      </Stack>
      <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
        <ChatIcon fontSize="small" color="action" />
        <Typography variant="body2" component="span">
          Messenger:{' '}
          <Link href={messengerUrl} target="_blank" rel="noopener noreferrer">
            {messenger}
          </Link>
        </Typography>
      </Stack>
    </Stack>
  );
}
