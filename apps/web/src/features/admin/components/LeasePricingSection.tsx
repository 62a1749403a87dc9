import { Button, IconButton, NativeSelect, TableCell, TableRow } from '@mui/material';
import { MAX_PRICING_RULES, type TPricingRules } from '@pm/contracts';
import { CompactTable } from '../../../components/ui/CompactTable.tsx';
import { InputField } from '../../../components/ui/InputField.tsx';
import { useAdmin } from '../adminContext.tsx';
import { blankRule, CONN_CHOICES, type RuleDraft, toRuleDrafts, toRulesBody } from '../pricing.ts';
import { pricingRulesQuery } from '../queries.ts';
import { Section } from './AdminParts.tsx';
import { EditorFrame, PriceTableBox, SavedBy, usePriceEditor } from './PricingParts.tsx';

/**
 * Nine narrow columns fit the 620 px box at 1280 px, so no column scrolls out of view; the note, the
 * widest field, has its own line under its rule.
 */
const COLUMNS = ['#', 'Country', 'Conn', 'Min ★', 'Max ★', 'New', 'Private $', 'Shared $', ''];
/** Narrow cells: the input's own side padding would leave no room for "12.50". */
const TIGHT = { '& .MuiOutlinedInput-input': { px: 1 } };
const drafts = (data: TPricingRules) => toRuleDrafts(data.rules);

/** A text cell of rule `row`, named for tests and screen readers ("rule 2 private price"). */
function Cell({
  row,
  field,
  label,
  value,
  width,
  onChange,
}: {
  row: number;
  field: string;
  label: string;
  value: string;
  width: number;
  onChange: (v: string) => void;
}) {
  return (
    <InputField
      size="small"
      value={value}
      onChange={(e) => onChange(e.target.value)}
      placeholder={field === 'cc' ? 'any' : undefined}
      sx={{ width, ...TIGHT }}
      htmlInput={{ 'aria-label': `rule ${row + 1} ${label}`, 'data-testid': `pricing-rule-${row}-${field}` }}
    />
  );
}

/** Conn and New: "any" or one value. */
function Choice<T extends string>({
  row,
  label,
  value,
  choices,
  onChange,
}: {
  row: number;
  label: string;
  value: T;
  choices: readonly { value: T; text: string }[];
  onChange: (v: T) => void;
}) {
  return (
    <NativeSelect
      value={value}
      onChange={(e) => onChange(e.target.value as T)}
      // Wide enough for "wifi" and "any" beside the arrow.
      sx={{ minWidth: 64 }}
      inputProps={{ 'aria-label': `rule ${row + 1} ${label}` }}
    >
      {choices.map((c) => (
        <option key={c.value} value={c.value}>
          {c.text}
        </option>
      ))}
    </NativeSelect>
  );
}

const CONNS = CONN_CHOICES.map((c) => ({ value: c, text: c || 'any' }));
const FRESH = [
  { value: '' as const, text: 'any' },
  { value: 'yes' as const, text: 'yes' },
  { value: 'no' as const, text: 'no' },
];

function RuleRow({
  d,
  i,
  edit,
  remove,
}: {
  d: RuleDraft;
  i: number;
  edit: (p: Partial<RuleDraft>) => void;
  remove?: () => void;
}) {
  const text = (field: keyof RuleDraft, label: string, width: number) => (
    <Cell
      row={i}
      field={field}
      label={label}
      value={d[field]}
      width={width}
      onChange={(v) => edit({ [field]: v })}
    />
  );
  // The rule's first line has no bottom border: the note line under it belongs to the same rule.
  const top = { '& > td': { borderBottom: 'none', pb: 0.25 } };
  return (
    <>
      <TableRow data-testid="pricing-rule-row" sx={top}>
        <TableCell>{i + 1}</TableCell>
        <TableCell>{text('cc', 'country (empty: any)', 52)}</TableCell>
        <TableCell>
          <Choice
            row={i}
            label="connection"
            value={d.conn}
            choices={CONNS}
            onChange={(conn) => edit({ conn })}
          />
        </TableCell>
        <TableCell>{text('minStars', 'min stars', 44)}</TableCell>
        <TableCell>{text('maxStars', 'max stars', 44)}</TableCell>
        <TableCell>
          <Choice row={i} label="new" value={d.fresh} choices={FRESH} onChange={(fresh) => edit({ fresh })} />
        </TableCell>
        <TableCell>{text('priceExc', 'private price', 68)}</TableCell>
        <TableCell>{text('priceShr', 'shared price', 68)}</TableCell>
        <TableCell>
          {remove && (
            <IconButton size="small" aria-label={`remove rule ${i + 1}`} onClick={remove}>
              ×
            </IconButton>
          )}
        </TableCell>
      </TableRow>
      <TableRow>
        <TableCell />
        <TableCell colSpan={COLUMNS.length - 1} sx={{ pt: 0.25 }}>
          <InputField
            size="small"
            fullWidth
            placeholder="Note"
            value={d.note}
            onChange={(e) => edit({ note: e.target.value })}
            htmlInput={{ 'aria-label': `rule ${i + 1} note`, 'data-testid': `pricing-rule-${i}-note` }}
          />
        </TableCell>
      </TableRow>
    </>
  );
}

/**
 * The lease price list (`GET|PUT /pricing/rules`): first matching rule prices an agent, the last one
 * matches every agent. Rows can be added (above the last) and removed (all but the last).
 */
export function LeasePricingSection() {
  const { client } = useAdmin();
  const editor = usePriceEditor({
    query: pricingRulesQuery(client),
    save: client.savePricingRules,
    toDrafts: drafts,
    toBody: toRulesBody,
    savedText: 'Lease prices saved',
  });
  const { drafts: rows, setDrafts, edit } = editor;
  const addRow = () => setDrafts((ds) => [...ds.slice(0, -1), blankRule(ds.at(-1)), ...ds.slice(-1)]);
  return (
    <Section title="Lease prices" testId="admin-lease-pricing">
      {editor.query.data && <SavedBy at={editor.query.data.updatedAt} by={editor.query.data.updatedBy} />}
      <EditorFrame
        editor={editor}
        testId="pricing-rules"
        extraButtons={
          <Button variant="outlined" disabled={rows.length >= MAX_PRICING_RULES} onClick={addRow}>
            Add rule
          </Button>
        }
      >
        <PriceTableBox testId="pricing-rules-box">
          <CompactTable label="Lease pricing rules" columns={COLUMNS}>
            {rows.map((d, i) => (
              <RuleRow
                // Rows have no id of their own; position is their identity while editing.
                // biome-ignore lint/suspicious/noArrayIndexKey: see above
                key={i}
                d={d}
                i={i}
                edit={(p) => edit(i, p)}
                remove={
                  i < rows.length - 1 ? () => setDrafts((ds) => ds.filter((_, j) => j !== i)) : undefined
                }
              />
            ))}
          </CompactTable>
        </PriceTableBox>
      </EditorFrame>
    </Section>
  );
}
