import { z } from 'zod';
import { ZLoc } from './agents.ts';

/**
 * Purchase probes travel between the market API and gateway nodes through PostgreSQL only: a
 * `probe_requests` row plus these notifications (docs/gateway.md, "Purchase probes").
 */
/** Notified by the API with the node id when it asks that node for a probe. */
export const PROBE_REQUESTED_CHANNEL = 'probe_requested';
/** Notified by the gateway with the request id when the result is written. */
export const PROBE_DONE_CHANNEL = 'probe_done';

/** The agent's exit as a probe saw it (`probe_requests.observed`); `host` and `loc` null when unknown. */
export const ZProbeObservation = z.object({
  ip: z.string(),
  host: z.string().nullable(),
  loc: ZLoc.nullable(),
});
export type TProbeObservation = z.infer<typeof ZProbeObservation>;
