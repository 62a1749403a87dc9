import {
  FormControl,
  FormHelperText,
  InputLabel,
  OutlinedInput,
  type OutlinedInputProps,
  type SxProps,
  type Theme,
} from '@mui/material';
import { type InputHTMLAttributes, type ReactNode, useId } from 'react';

export interface InputFieldProps
  extends Pick<
    OutlinedInputProps,
    | 'value'
    | 'onChange'
    | 'onFocus'
    | 'onBlur'
    | 'placeholder'
    | 'multiline'
    | 'maxRows'
    | 'type'
    | 'error'
    | 'startAdornment'
    | 'endAdornment'
  > {
  label?: string;
  helperText?: ReactNode;
  size?: 'small' | 'medium';
  fullWidth?: boolean;
  /** Keeps the label above the field (date inputs show their own placeholder). */
  shrinkLabel?: boolean;
  /** Attributes of the `<input>` itself (aria-label, maxLength, min, max…). */
  htmlInput?: InputHTMLAttributes<HTMLInputElement> & Record<`data-${string}`, string>;
  sx?: SxProps<Theme>;
}

/**
 * An outlined text field, as Material UI's TextField draws it, built from its parts. TextField also
 * carries the Select variant, which pulls Menu, Popover and Modal into every screen that shows a text
 * box (about 10 kB on the wire); screens that need a select use TextField or Select where they are.
 */
export function InputField({
  label,
  helperText,
  size,
  fullWidth,
  shrinkLabel,
  htmlInput,
  sx,
  error,
  ...input
}: InputFieldProps) {
  const id = useId();
  const helperId = helperText ? `${id}-helper` : undefined;
  return (
    <FormControl variant="outlined" size={size} fullWidth={fullWidth} error={error} sx={sx}>
      {label && (
        <InputLabel htmlFor={id} shrink={shrinkLabel ? true : undefined}>
          {label}
        </InputLabel>
      )}
      <OutlinedInput
        {...input}
        id={id}
        label={label}
        notched={shrinkLabel ? true : undefined}
        inputProps={{ ...htmlInput, 'aria-describedby': helperId }}
      />
      {helperText && <FormHelperText id={helperId}>{helperText}</FormHelperText>}
    </FormControl>
  );
}
