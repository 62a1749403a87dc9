import { Alert, Button, Stack, TextField } from '@mui/material';
import { isApiError } from '../../../lib/api/transport.ts';

/** The API's `message` for a failed request, else `fallback`. */
export function apiErrorText(e: unknown, fallback: string): string {
  const body = isApiError(e) ? (e.body as { message?: unknown } | undefined) : undefined;
  return typeof body?.message === 'string' ? body.message : fallback;
}

export interface CreateFormProps {
  label: string;
  placeholder: string;
  value: string;
  onChange: (value: string) => void;
  maxLength: number;
  /** `data-testid` of the input. */
  testId: string;
  /** The field takes the row's free width. */
  grow?: boolean;
  submitLabel: string;
  pending: boolean;
  /** Called with the trimmed value, never empty. */
  onSubmit: (value: string) => void;
  /** The failed create's error, shown under the row. */
  error: unknown;
  errorFallback: string;
}

/** One text field and a submit button that creates something (an API key, a webhook endpoint), and its error. */
export function CreateForm(props: CreateFormProps) {
  const trimmed = props.value.trim();
  return (
    <>
      <Stack
        component="form"
        direction={{ xs: 'column', sm: 'row' }}
        spacing={1}
        sx={{ mb: 2 }}
        onSubmit={(e) => {
          e.preventDefault();
          if (trimmed) props.onSubmit(trimmed);
        }}
      >
        <TextField
          size="small"
          label={props.label}
          placeholder={props.placeholder}
          value={props.value}
          onChange={(e) => props.onChange(e.target.value)}
          {...(props.grow ? { sx: { flex: 1 } } : {})}
          slotProps={{ htmlInput: { maxLength: props.maxLength, 'data-testid': props.testId } }}
        />
        <Button type="submit" variant="contained" disabled={!trimmed || props.pending}>
          {props.submitLabel}
        </Button>
      </Stack>
      {props.error != null && (
        <Alert severity="error" sx={{ mb: 2 }}>
          {apiErrorText(props.error, props.errorFallback)}
        </Alert>
      )}
    </>
  );
}
