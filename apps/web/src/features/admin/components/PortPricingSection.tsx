import { TableCell, TableRow } from '@mui/material';
import type { TPortPriceRow } from '@pm/contracts';
import { CompactTable } from '../../../components/ui/CompactTable.tsx';
import { InputField } from '../../../components/ui/InputField.tsx';
import { useAdmin } from '../adminContext.tsx';
import { isPercentKind, toPortBody, toPortDrafts } from '../pricing.ts';
import { portPricingQuery } from '../queries.ts';
import { Section } from './AdminParts.tsx';
import { EditorFrame, PriceTableBox, SavedBy, usePriceEditor } from './PricingParts.tsx';

const drafts = (data: { rows: TPortPriceRow[] }) => toPortDrafts(data.rows);

/**
 * The port package price table (`GET|PUT /pricing/ports`): every kind and key once, so the rows are
 * fixed and only their values change. Cents are edited as dollars, geo/conn/access as percents.
 */
export function PortPricingSection() {
  const { client } = useAdmin();
  const editor = usePriceEditor({
    query: portPricingQuery(client),
    save: client.savePortPricing,
    toDrafts: drafts,
    toBody: toPortBody,
    savedText: 'Port prices saved',
  });
  return (
    <Section title="Port package prices" testId="admin-port-pricing">
      {editor.query.data && <SavedBy at={editor.query.data.updatedAt} by={editor.query.data.updatedBy} />}
      <EditorFrame editor={editor} testId="pricing-ports">
        <PriceTableBox testId="pricing-ports-box">
          <CompactTable label="Port pricing" columns={['Kind', 'Key', 'Value', 'Unit']}>
            {editor.drafts.map((d, i) => (
              <TableRow key={`${d.kind}-${d.key}`} data-testid="pricing-port-row">
                <TableCell>{d.kind}</TableCell>
                <TableCell>{d.key}</TableCell>
                <TableCell>
                  <InputField
                    size="small"
                    value={d.value}
                    onChange={(e) => editor.edit(i, { value: e.target.value })}
                    sx={{ width: 110 }}
                    htmlInput={{
                      'aria-label': `${d.kind} ${d.key} value`,
                      'data-testid': `pricing-port-${d.kind}-${d.key}`,
                    }}
                  />
                </TableCell>
                <TableCell>{isPercentKind(d.kind) ? '%' : d.kind === 'gb' ? '$ per GB' : '$'}</TableCell>
              </TableRow>
            ))}
          </CompactTable>
        </PriceTableBox>
      </EditorFrame>
    </Section>
  );
}
