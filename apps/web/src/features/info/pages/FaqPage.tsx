import ExpandMoreIcon from '@mui/icons-material/ExpandMore';
import { Accordion, AccordionDetails, AccordionSummary, Typography } from '@mui/material';
import { useLocation } from 'react-router';
import { Page } from '../../../components/ui/Page.tsx';
import { faqEntries } from '../faq.ts';

const ENTRIES = faqEntries();

/** FAQ (rules §2): an accordion of the product's rules, written from the values the server enforces. */
export function FaqPage() {
  // `/faq#refunds` opens that answer.
  const opened = useLocation().hash.slice(1);
  return (
    <Page title="FAQ">
      {ENTRIES.map((e) => (
        <Accordion key={e.id} id={e.id} defaultExpanded={e.id === opened} disableGutters>
          <AccordionSummary
            expandIcon={<ExpandMoreIcon />}
            aria-controls={`${e.id}-answer`}
            id={`${e.id}-question`}
          >
            <Typography component="h2" sx={{ fontWeight: 500 }}>
              {e.question}
            </Typography>
          </AccordionSummary>
          <AccordionDetails id={`${e.id}-answer`}>
            {e.answer.map((p) => (
              <Typography key={p} color="text.secondary" sx={{ mb: 1 }}>
                {p}
              </Typography>
            ))}
          </AccordionDetails>
        </Accordion>
      ))}
    </Page>
  );
}
