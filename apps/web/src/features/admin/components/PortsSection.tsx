import { Button, TableCell, TableRow, Typography } from '@mui/material';
import { CompactTable } from '../../../components/ui/CompactTable.tsx';
import { useAdmin, useLoadedUser } from '../adminContext.tsx';
import { adminPortsQuery, useAskedQuery } from '../queries.ts';
import { formatMb, formatUsd, isHeavyTraffic } from '../rules.ts';
import { ActionError, NeedsUser, Section, TableScroll } from './AdminParts.tsx';

const day = (iso: string) => iso.slice(0, 10);

/** The loaded customer's port packages (ports API), traffic over 100 MB highlighted. */
export function PortsSection() {
  const { client } = useAdmin();
  const { user } = useLoadedUser();
  const load = useAskedQuery((userId: string) => adminPortsQuery(client, userId));
  return (
    <Section title="Ports of the loaded user">
      {!user && <NeedsUser />}
      <Button
        variant="outlined"
        disabled={!user || load.busy}
        onClick={() => user && load.ask(user.userId)}
        data-testid="admin-load-ports"
      >
        Load ports
      </Button>
      <ActionError error={load.error} />
      {load.data && (
        <TableScroll>
          <CompactTable
            label="Port packages"
            columns={['Package', 'Status', 'Period', 'Geo', 'Access', 'Ports', 'Price', 'Traffic']}
          >
            {load.data.map((p) => {
              const bytes = p.stats.upload + p.stats.download;
              return (
                <TableRow key={p.id} data-testid="admin-port-row">
                  <TableCell>{p.id}</TableCell>
                  <TableCell>{p.status.type}</TableCell>
                  <TableCell sx={{ whiteSpace: 'nowrap' }}>
                    {day(p.date_start)} – {day(p.date_finish)}
                  </TableCell>
                  <TableCell>
                    {[p.geo.country, p.geo.state, p.geo.city].filter(Boolean).join(' / ')}
                  </TableCell>
                  <TableCell>
                    {p.access.type === 'auth'
                      ? 'login/password'
                      : `whitelist (${p.access.whitelist_ips.length})`}
                  </TableCell>
                  <TableCell>{p.access.port_amount}</TableCell>
                  <TableCell>{formatUsd(p.price)}</TableCell>
                  <TableCell
                    sx={isHeavyTraffic(bytes) ? { fontWeight: 700, color: 'error.dark' } : undefined}
                  >
                    {formatMb(bytes)}
                  </TableCell>
                </TableRow>
              );
            })}
          </CompactTable>
          {load.data.length === 0 && <Typography sx={{ mt: 1 }}>No ports</Typography>}
        </TableScroll>
      )}
    </Section>
  );
}
