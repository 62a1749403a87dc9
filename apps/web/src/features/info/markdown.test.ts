import assert from 'node:assert/strict';
import { it } from 'node:test';
import { parseInline, parseMarkdown } from './markdown.ts';

it('reads headings, paragraphs, lists, bold and links', () => {
  const blocks = parseMarkdown(
    '# Terms\n\nFirst line\ncontinues **here**.\n\n## Refunds\n- one\n- two [FAQ](https://op.example/faq)\n\nEnd.',
  );
  assert.deepEqual(blocks, [
    { kind: 'heading', level: 1, inlines: [{ text: 'Terms' }] },
    {
      kind: 'paragraph',
      inlines: [{ text: 'First line continues ' }, { text: 'here', bold: true }, { text: '.' }],
    },
    { kind: 'heading', level: 2, inlines: [{ text: 'Refunds' }] },
    {
      kind: 'list',
      items: [[{ text: 'one' }], [{ text: 'two ' }, { text: 'FAQ', href: 'https://op.example/faq' }]],
    },
    { kind: 'paragraph', inlines: [{ text: 'End.' }] },
  ]);
});

it('keeps markup as text and links only http(s) and mailto', () => {
  assert.deepEqual(parseInline('<script>x</script> [a](javascript:alert(1))'), [
    { text: '<script>x</script> [a](javascript:alert(1))' },
  ]);
  assert.deepEqual(parseInline('[mail](mailto:help@op.example)'), [
    { text: 'mail', href: 'mailto:help@op.example' },
  ]);
});
