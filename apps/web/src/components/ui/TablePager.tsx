import ChevronLeftIcon from '@mui/icons-material/ChevronLeft';
import ChevronRightIcon from '@mui/icons-material/ChevronRight';
import { Box, IconButton, Stack, Typography } from '@mui/material';

interface TablePagerProps {
  /** Rows in all pages. */
  count: number;
  /** Zero-based page. */
  page: number;
  rowsPerPage: number;
  /** The choices of rows per page; with one (or none) the choice is not shown. */
  rowsPerPageOptions: readonly number[];
  onPageChange: (page: number) => void;
  onRowsPerPageChange: (rowsPerPage: number) => void;
}

/**
 * A table's pagination: rows per page, "1–10 of 15", previous and next. Material UI's
 * TablePagination does the same with tooltips on its arrows and a Material select, which pull the
 * tooltip, popper, menu and input code (some 20 kB gzipped) into the shop's first load.
 */
export function TablePager({
  count,
  page,
  rowsPerPage,
  rowsPerPageOptions,
  onPageChange,
  onRowsPerPageChange,
}: TablePagerProps) {
  const from = count === 0 ? 0 : page * rowsPerPage + 1;
  const to = Math.min(count, (page + 1) * rowsPerPage);
  const isLast = (page + 1) * rowsPerPage >= count;
  return (
    <Stack
      direction="row"
      spacing={2}
      sx={{ alignItems: 'center', justifyContent: 'flex-end', px: 2, minHeight: 52 }}
      data-testid="table-pager"
    >
      {rowsPerPageOptions.length > 1 && (
        <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
          <Typography variant="body2" component="label" htmlFor="rows-per-page">
            Rows per page:
          </Typography>
          <Box
            component="select"
            id="rows-per-page"
            value={rowsPerPage}
            onChange={(e) => onRowsPerPageChange(Number(e.target.value))}
            sx={{
              typography: 'body2',
              border: 1,
              borderColor: 'divider',
              borderRadius: 1,
              bgcolor: 'background.paper',
              px: 0.5,
              py: 0.25,
            }}
          >
            {rowsPerPageOptions.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </Box>
        </Stack>
      )}
      <Typography variant="body2" data-testid="pager-range">
        {from}–{to} of {count}
      </Typography>
      <Stack direction="row">
        <IconButton
          aria-label="Go to previous page"
          disabled={page === 0}
          onClick={() => onPageChange(page - 1)}
        >
          <ChevronLeftIcon />
        </IconButton>
        <IconButton aria-label="Go to next page" disabled={isLast} onClick={() => onPageChange(page + 1)}>
          <ChevronRightIcon />
        </IconButton>
      </Stack>
    </Stack>
  );
}
