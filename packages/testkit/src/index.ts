export { type WaitOptions, waitFor } from './wait.ts';
