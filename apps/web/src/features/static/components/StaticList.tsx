import {
  Button,
  Card,
  CardContent,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  Typography,
} from '@mui/material';
import type { TStaticAgent } from '@pm/contracts';
import { formatUsd } from '@pm/money';
import { connLabel } from '../../../lib/format/agent.ts';

const COLUMNS = ['IP', 'City', 'ISP', 'Conn', 'Price', ''] as const;

interface StaticListProps {
  agents: TStaticAgent[];
  onBuy: (agent: TStaticAgent) => void;
}

/** The desktop static proxy table. */
export function StaticTable({ agents, onBuy }: StaticListProps) {
  return (
    <TableContainer>
      <Table size="small" aria-label="Static proxies">
        <TableHead>
          <TableRow>
            {COLUMNS.map((c) => (
              <TableCell key={c} sx={{ fontWeight: 700 }}>
                {c}
              </TableCell>
            ))}
          </TableRow>
        </TableHead>
        <TableBody>
          {agents.map((a) => (
            <TableRow key={a.id} data-testid="static-row" hover>
              <TableCell sx={{ fontFamily: 'monospace' }}>{a.ip}</TableCell>
              <TableCell>{a.loc.city}</TableCell>
              <TableCell>{a.loc.isp}</TableCell>
              <TableCell>{connLabel(a.conn)}</TableCell>
              <TableCell>{formatUsd(a.priceC)}</TableCell>
              <TableCell align="right">
                <Button size="small" variant="contained" onClick={() => onBuy(a)}>
                  Buy
                </Button>
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </TableContainer>
  );
}

/** The phone's static proxies, a card each. */
export function StaticCards({ agents, onBuy }: StaticListProps) {
  return (
    <Stack spacing={1.5}>
      {agents.map((a) => (
        <Card key={a.id} data-testid="static-row">
          <CardContent sx={{ py: 1.5, '&:last-child': { pb: 1.5 } }}>
            <Stack direction="row" spacing={1} sx={{ alignItems: 'center', justifyContent: 'space-between' }}>
              <div>
                <Typography sx={{ fontFamily: 'monospace', fontWeight: 700 }}>{a.ip}</Typography>
                <Typography variant="body2" color="text.secondary">
                  {[a.loc.city, a.loc.isp, connLabel(a.conn)].filter(Boolean).join(' · ')}
                </Typography>
              </div>
              <Button size="small" variant="contained" onClick={() => onBuy(a)} sx={{ flexShrink: 0 }}>
                Buy {formatUsd(a.priceC)}
              </Button>
            </Stack>
          </CardContent>
        </Card>
      ))}
    </Stack>
  );
}
