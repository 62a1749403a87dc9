import { Alert, Card, CardContent, Stack, Typography } from '@mui/material';
import { Page } from '../../../components/ui/Page.tsx';

export interface LegalSection {
  heading: string;
  body: string;
}

/** A static legal page. The texts are placeholders until the operator supplies its legal copy. */
export function LegalPage({ title, sections }: { title: string; sections: readonly LegalSection[] }) {
  return (
    <Page title={title}>
      <Card>
        <CardContent>
          <Stack spacing={2.5}>
            <Alert severity="info" data-testid="placeholder-legal-text">
              Placeholder text: the operator's legal copy replaces this page before launch.
            </Alert>
            {sections.map((s, i) => (
              <section key={s.heading}>
                <Typography variant="h6" component="h2" gutterBottom>
                  {i + 1}. {s.heading}
                </Typography>
                <Typography color="text.secondary">{s.body}</Typography>
              </section>
            ))}
          </Stack>
        </CardContent>
      </Card>
    </Page>
  );
}
