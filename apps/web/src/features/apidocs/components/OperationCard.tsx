import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import {
  Box,
  Card,
  CardContent,
  Chip,
  IconButton,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  Typography,
} from '@mui/material';
import { useToast } from '../../../components/ui/Toasts.tsx';
import { copyText } from '../../../lib/clipboard.ts';
import type { DocOperation } from '../document.ts';

const METHOD_COLOR: Record<string, 'success' | 'primary' | 'error' | 'warning'> = {
  GET: 'success',
  POST: 'primary',
  DELETE: 'error',
  PATCH: 'warning',
};

/** Text with `code` spans (the document's descriptions mark names with backticks). */
export function WithCode({ text }: { text: string }) {
  return text.split('`').map((part, i) =>
    // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one fixed string
    i % 2 === 1 ? <code key={i}>{part}</code> : <span key={i}>{part}</span>,
  );
}

/** A block of code with a copy button. */
export function CodeBlock({ code, label }: { code: string; label: string }) {
  const toast = useToast();
  return (
    <Box sx={{ position: 'relative' }}>
      <Box
        component="pre"
        aria-label={label}
        sx={{
          m: 0,
          p: 1.5,
          pr: 5,
          bgcolor: 'grey.100',
          borderRadius: 1,
          fontSize: 13,
          overflowX: 'auto',
          whiteSpace: 'pre',
        }}
      >
        {code}
      </Box>
      <IconButton
        aria-label={`Copy ${label}`}
        size="small"
        sx={{ position: 'absolute', top: 4, right: 4 }}
        onClick={async () => {
          if (await copyText(code)) toast('Copied to clipboard', { autoHideMs: 3000 });
        }}
      >
        <ContentCopyIcon fontSize="small" />
      </IconButton>
    </Box>
  );
}

/** One operation of the public document: parameters, request, answer and a curl line. */
export function OperationCard({
  op,
  curl,
  requestText,
}: {
  op: DocOperation;
  curl: string;
  requestText?: string;
}) {
  return (
    <Card id={op.operationId} data-testid={`op-${op.operationId}`}>
      <CardContent>
        <Stack direction="row" spacing={1} sx={{ alignItems: 'center', mb: 1, flexWrap: 'wrap' }}>
          <Chip size="small" label={op.method} color={METHOD_COLOR[op.method] ?? 'default'} />
          <Typography component="code" sx={{ fontFamily: 'monospace', wordBreak: 'break-all' }}>
            {op.path}
          </Typography>
        </Stack>
        <Typography variant="h6" component="h2">
          {op.summary}
        </Typography>
        {op.description && (
          <Typography color="text.secondary" sx={{ mb: 1 }}>
            <WithCode text={op.description} />
          </Typography>
        )}
        {op.params.length > 0 && (
          <Box sx={{ overflowX: 'auto', mb: 1 }}>
            <Table size="small" aria-label={`${op.operationId} parameters`}>
              <TableHead>
                <TableRow>
                  <TableCell>Parameter</TableCell>
                  <TableCell>In</TableCell>
                  <TableCell>Type</TableCell>
                  <TableCell>Required</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {op.params.map((p) => (
                  <TableRow key={`${p.in}-${p.name}`}>
                    <TableCell sx={{ fontFamily: 'monospace' }}>{p.name}</TableCell>
                    <TableCell>{p.in}</TableCell>
                    <TableCell sx={{ fontFamily: 'monospace', maxWidth: 240, wordBreak: 'break-word' }}>
                      {p.type}
                    </TableCell>
                    <TableCell>{p.required ? 'yes' : 'no'}</TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </Box>
        )}
        <Stack spacing={1}>
          {requestText !== undefined && (
            <>
              <Typography variant="subtitle2">Request</Typography>
              <CodeBlock code={requestText} label={`${op.operationId} request`} />
            </>
          )}
          {op.answerExample !== undefined && (
            <>
              <Typography variant="subtitle2">Answer ({op.answerStatus}, example abridged)</Typography>
              <CodeBlock
                code={JSON.stringify(op.answerExample, null, 2)}
                label={`${op.operationId} answer`}
              />
            </>
          )}
          <Typography variant="subtitle2">curl</Typography>
          <CodeBlock code={curl} label={`${op.operationId} curl`} />
        </Stack>
      </CardContent>
    </Card>
  );
}
