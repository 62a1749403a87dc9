import { MAX_NOTE_LENGTH, type TLease } from '@pm/contracts';
import { useEffect, useRef, useState } from 'react';
import { InputField } from '../../../components/ui/InputField.tsx';
import { useNoteMutation } from '../mutations.ts';

/**
 * The lease's 'Add note' field (rules §4, 5): up to 200 characters over at most 3 rows, changed
 * locally while typing, saved trimmed on blur, and deleted at once when cleared.
 */
export function LeaseNoteField({ lease }: { lease: Pick<TLease, 'agentId' | 'note'> }) {
  const [text, setText] = useState(lease.note);
  const isEditing = useRef(false);
  const saved = useRef(lease.note);
  const { mutate } = useNoteMutation(lease.agentId);

  // A note changed elsewhere (another lease on the agent, a refresh) shows unless the user is typing.
  useEffect(() => {
    saved.current = lease.note;
    if (!isEditing.current) setText(lease.note);
  }, [lease.note]);

  const save = (note: string) => {
    if (note === saved.current) return;
    saved.current = note;
    mutate(note);
  };

  return (
    <InputField
      label="Add note"
      placeholder="A note only you see"
      multiline
      maxRows={3}
      fullWidth
      size="small"
      value={text}
      onFocus={() => {
        isEditing.current = true;
      }}
      onChange={(e) => {
        const next = e.target.value.slice(0, MAX_NOTE_LENGTH);
        setText(next);
        if (next.trim() === '') save('');
      }}
      onBlur={() => {
        isEditing.current = false;
        const note = text.trim();
        setText(note);
        save(note);
      }}
      helperText={`${text.length}/${MAX_NOTE_LENGTH}`}
      htmlInput={{ maxLength: MAX_NOTE_LENGTH, 'aria-label': 'Add note' }}
    />
  );
}
