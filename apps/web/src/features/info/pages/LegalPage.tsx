import { Box, Card, CardContent, Link, Skeleton, Stack, Typography } from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { useEnvironment } from '../../../app/context.tsx';
import { PRODUCT_NAME } from '../../../app/product.ts';
import { Page } from '../../../components/ui/Page.tsx';
import { queryKeys } from '../../../lib/query/keys.ts';
import { type LegalDoc, type LegalSection, operatorCopy, privacySections, termsSections } from '../legal.ts';
import { type Inline, parseMarkdown } from '../markdown.ts';

/** The operator's legal copy, served by the web listener beside the app (TERMS_FILE, PRIVACY_FILE). */
async function fetchLegalCopy(signal: AbortSignal): Promise<unknown> {
  const res = await fetch('/legal.json', { signal, headers: { accept: 'application/json' } });
  if (!res.ok || !res.headers.get('content-type')?.includes('json')) return null;
  return res.json().catch(() => null);
}

const TEMPLATES: Record<LegalDoc, (product: string, email: string) => LegalSection[]> = {
  terms: termsSections,
  privacy: privacySections,
};

/**
 * Terms and Conditions or Privacy Policy: the operator's copy when configured, else the product's
 * template, which states the rules the product applies (refunds, auto-refund, the balance).
 */
export function LegalPage({ title, doc }: { title: string; doc: LegalDoc }) {
  const environment = useEnvironment();
  const { data, isPending } = useQuery({
    queryKey: queryKeys.content.legal(),
    queryFn: ({ signal }) => fetchLegalCopy(signal),
    staleTime: Number.POSITIVE_INFINITY,
    retry: false,
  });
  const copy = operatorCopy(data, doc);
  return (
    <Page title={title}>
      <Card>
        <CardContent data-testid="legal-copy">
          {isPending ? (
            <Skeleton variant="rounded" height={240} />
          ) : copy ? (
            <OperatorCopy markdown={copy} />
          ) : (
            <Stack spacing={2.5}>
              {TEMPLATES[doc](PRODUCT_NAME, environment.support.email).map((s, i) => (
                <section key={s.heading}>
                  <Typography variant="h6" component="h2" gutterBottom>
                    {i + 1}. {s.heading}
                  </Typography>
                  {s.paragraphs.map((p) => (
                    <Typography key={p} color="text.secondary" sx={{ mb: 1 }}>
                      {p}
                    </Typography>
                  ))}
                </section>
              ))}
            </Stack>
          )}
        </CardContent>
      </Card>
    </Page>
  );
}

const HEADING = { 1: 'h5', 2: 'h6', 3: 'subtitle1' } as const;

/** The operator's Markdown as elements (never as HTML). */
function OperatorCopy({ markdown }: { markdown: string }) {
  return (
    <Stack spacing={1.5}>
      {parseMarkdown(markdown).map((b, i) => {
        const key = `${i}`;
        if (b.kind === 'heading') {
          return (
            <Typography key={key} variant={HEADING[b.level]} component={`h${b.level + 1}` as 'h2'}>
              <Inlines runs={b.inlines} />
            </Typography>
          );
        }
        if (b.kind === 'list') {
          return (
            <Box key={key} component="ul" sx={{ my: 0, pl: 3, color: 'text.secondary' }}>
              {b.items.map((item, j) => {
                const itemKey = `${key}.${j}`;
                return (
                  <li key={itemKey}>
                    <Inlines runs={item} />
                  </li>
                );
              })}
            </Box>
          );
        }
        return (
          <Typography key={key} color="text.secondary">
            <Inlines runs={b.inlines} />
          </Typography>
        );
      })}
    </Stack>
  );
}

function Inlines({ runs }: { runs: Inline[] }) {
  return runs.map((r, i) => {
    const key = `${i}`;
    if (r.href) {
      return (
        <Link key={key} href={r.href} target="_blank" rel="noopener noreferrer">
          {r.text}
        </Link>
      );
    }
    return r.bold ? <strong key={key}>{r.text}</strong> : <span key={key}>{r.text}</span>;
  });
}
