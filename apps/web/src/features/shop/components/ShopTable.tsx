import { Paper, Skeleton, TableCell, TableContainer, TableRow } from '@mui/material';
import { SHOP_PAGE_SIZES, type TAgent } from '@pm/contracts';
import { formatUsd } from '@pm/money';
import { CompactTable } from '../../../components/ui/CompactTable.tsx';
import { EmptyState } from '../../../components/ui/EmptyState.tsx';
import { TablePager } from '../../../components/ui/TablePager.tsx';
import { isPrivateByDefault, maskIp, newLabel, priceFor, sharedLabel } from '../../../lib/format/agent.ts';
import type { ShopPaging } from '../filters.ts';
import { CleanScore, ConnLabel } from './AgentBadges.tsx';

export const NOTHING_FOUND_TEXT =
  'Nothing found :( We are working hard on getting IPs you have requested, they will be available soon!';

const COLUMNS = ['IP', 'Region', 'City', 'ZIP', 'ISP', 'Clean', 'Shared', 'Conn', 'New', 'Price'] as const;

interface ShopTableProps {
  agents: TAgent[] | undefined;
  total: number;
  paging: ShopPaging;
  selectedId: string | null;
  onSelect: (agent: TAgent) => void;
  onPagingChange: (paging: ShopPaging) => void;
}

/** The desktop proxy table (rules §2) with its pagination (10, 20 or 50 rows). */
export function ShopTable({ agents, total, paging, selectedId, onSelect, onPagingChange }: ShopTableProps) {
  return (
    <Paper variant="outlined">
      <TableContainer>
        <CompactTable label="Proxies" columns={COLUMNS}>
          {!agents && <LoadingRows rows={paging.rowsPerPage} />}
          {agents?.length === 0 && (
            <TableRow>
              <TableCell colSpan={COLUMNS.length}>
                <EmptyState testId="shop-empty">{NOTHING_FOUND_TEXT}</EmptyState>
              </TableCell>
            </TableRow>
          )}
          {agents?.map((agent) => (
            <AgentRow
              key={agent.id}
              agent={agent}
              isSelected={agent.id === selectedId}
              onSelect={() => onSelect(agent)}
            />
          ))}
        </CompactTable>
      </TableContainer>
      <TablePager
        count={total}
        page={paging.page}
        rowsPerPage={paging.rowsPerPage}
        rowsPerPageOptions={SHOP_PAGE_SIZES}
        onPageChange={(page) => onPagingChange({ ...paging, page })}
        onRowsPerPageChange={(rowsPerPage) => onPagingChange({ page: 0, rowsPerPage })}
      />
    </Paper>
  );
}

const ellipsis = {
  maxWidth: 130,
  overflow: 'hidden',
  textOverflow: 'ellipsis',
  whiteSpace: 'nowrap',
} as const;

function AgentRow({
  agent,
  isSelected,
  onSelect,
}: {
  agent: TAgent;
  isSelected: boolean;
  onSelect: () => void;
}) {
  const ip = maskIp(agent.ip);
  return (
    <TableRow
      hover
      selected={isSelected}
      onClick={onSelect}
      onKeyDown={(e) => {
        if (e.key === 'Enter' || e.key === ' ') onSelect();
      }}
      tabIndex={0}
      aria-selected={isSelected}
      data-testid="agent-row"
      sx={{ cursor: 'pointer' }}
    >
      <TableCell sx={{ fontFamily: 'monospace', whiteSpace: 'nowrap' }}>{ip}</TableCell>
      <TableCell sx={ellipsis} title={agent.loc.reg}>
        {agent.loc.reg}
      </TableCell>
      <TableCell sx={ellipsis} title={agent.loc.city}>
        {agent.loc.city}
      </TableCell>
      <TableCell>{agent.loc.zip}</TableCell>
      <TableCell sx={{ ...ellipsis, maxWidth: 150 }} title={agent.loc.isp}>
        {agent.loc.isp}
      </TableCell>
      <TableCell>
        <CleanScore stars={agent.stars} />
      </TableCell>
      <TableCell sx={{ whiteSpace: 'nowrap' }}>{sharedLabel(agent.leases.count)}</TableCell>
      <TableCell>
        <ConnLabel conn={agent.conn} dev={agent.dev} />
      </TableCell>
      <TableCell>{newLabel(agent)}</TableCell>
      <TableCell sx={{ fontWeight: 700 }}>{formatUsd(priceFor(agent, isPrivateByDefault(agent)))}</TableCell>
    </TableRow>
  );
}

function LoadingRows({ rows }: { rows: number }) {
  return Array.from({ length: Math.min(rows, 10) }, (_, i) => (
    // biome-ignore lint/suspicious/noArrayIndexKey: placeholder rows have nothing else to key on
    <TableRow key={i}>
      <TableCell colSpan={COLUMNS.length}>
        <Skeleton variant="text" />
      </TableCell>
    </TableRow>
  ));
}
