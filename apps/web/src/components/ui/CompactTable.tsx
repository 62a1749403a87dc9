import { Table, TableBody, TableCell, TableHead, TableRow } from '@mui/material';
import type { ReactNode } from 'react';

/**
 * A small table with tight cell padding and a bold one-line header, for the wide desktop lists.
 * @param label the table's accessible name
 * @param columns the header texts, in order (also the cells' keys, so unique)
 * @param children the body rows
 */
export function CompactTable({
  label,
  columns,
  children,
}: {
  label: string;
  columns: readonly string[];
  children: ReactNode;
}) {
  return (
    <Table size="small" aria-label={label} sx={{ '& td, & th': { px: 1 } }}>
      <TableHead>
        <TableRow>
          {columns.map((c) => (
            <TableCell key={c} sx={{ fontWeight: 700, whiteSpace: 'nowrap' }}>
              {c}
            </TableCell>
          ))}
        </TableRow>
      </TableHead>
      <TableBody>{children}</TableBody>
    </Table>
  );
}
