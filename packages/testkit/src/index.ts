export { type Truthy, type WaitOptions, waitFor } from './wait.ts';
