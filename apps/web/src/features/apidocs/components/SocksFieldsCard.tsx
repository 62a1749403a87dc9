import {
  Box,
  Card,
  CardContent,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  Typography,
} from '@mui/material';
import type { DocField } from '../document.ts';
import { WithCode } from './OperationCard.tsx';

/**
 * The API page's "Connecting through a lease": each field of a lease's `socks` with the public
 * document's description of it, so the page says what the document says (the ports to dial are
 * given in full; no client adds offsets).
 */
export function SocksFieldsCard({ fields }: { fields: DocField[] }) {
  if (fields.length === 0) return null;
  return (
    <Card data-testid="socks-fields">
      <CardContent>
        <Typography variant="subtitle2" gutterBottom>
          Connecting through a lease
        </Typography>
        <Typography sx={{ mb: 1 }}>
          Each lease in the answers below carries <code>socks</code>: dial one of its <code>ports</code> with
          SOCKS5, or its <code>httpPort</code> as an HTTP proxy, with its <code>user</code> and{' '}
          <code>pwd</code>.
        </Typography>
        <Box sx={{ overflowX: 'auto' }}>
          <Table size="small" aria-label="lease connection fields">
            <TableHead>
              <TableRow>
                <TableCell>Field</TableCell>
                <TableCell>Type</TableCell>
                <TableCell>Meaning</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {fields.map((f) => (
                <TableRow key={f.name}>
                  <TableCell sx={{ fontFamily: 'monospace' }}>{f.name}</TableCell>
                  <TableCell sx={{ fontFamily: 'monospace' }}>{f.type}</TableCell>
                  <TableCell>
                    <WithCode text={f.description} />
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </Box>
      </CardContent>
    </Card>
  );
}
