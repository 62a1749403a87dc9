import { Box } from '@mui/material';
import { QRCodeSVG } from 'qrcode.react';

/** The QR code of the charge's payment URI (`bitcoin:…?amount=…`, `litecoin:…`, or the TRON address). */
export function ChargeQrCode({ value, size }: { value: string; size: number }) {
  return (
    <Box
      data-testid="charge-qr"
      data-value={value}
      sx={{ p: 1.5, bgcolor: '#fff', border: 1, borderColor: 'divider', borderRadius: 1, lineHeight: 0 }}
    >
      <QRCodeSVG value={value} size={size} level="M" marginSize={0} title="Payment QR code" />
    </Box>
  );
}
