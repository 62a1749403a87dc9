/**
 * What the devnet's checks stand-ins say about the demo agents' addresses (demo-identities.ts),
 * so every panel shows real data in `npm start`: some US agents on blacklists (one only on the
 * two ignored lists, one behind an error code), and score profiles per address.
 */
import type { DnsblListings } from './dns.ts';

/** Blacklist zone answers by address; zone names are the real ones the server looks up by default. */
export const DEMO_DNSBL_LISTINGS: DnsblListings = {
  'zen.spamhaus.org': {
    '203.0.113.12': '127.0.0.4',
    '198.51.100.13': '127.0.0.2',
    // Spamhaus PBL (an end-user range): ignored, so Newark stays clean.
    '192.0.2.12': '127.0.0.10',
    // An error code, not a listing: Los Angeles stays clean.
    '192.0.2.14': '127.255.255.254',
  },
  'bl.spamcop.net': {
    '203.0.113.10': '127.0.0.2',
    '203.0.113.12': '127.0.0.2',
    '198.51.100.13': '127.0.0.2',
  },
  'b.barracudacentral.org': {
    '203.0.113.10': '127.0.0.2',
    '203.0.113.12': '127.0.0.2',
    '198.51.100.13': '127.0.0.2',
  },
  'dnsbl.dronebl.org': { '203.0.113.12': '127.0.0.3', '198.51.100.13': '127.0.0.3' },
  'psbl.surriel.com': { '203.0.113.12': '127.0.0.2', '198.51.100.13': '127.0.0.2' },
  'dnsbl-1.uceprotect.net': { '198.51.100.13': '127.0.0.2' },
  'bl.mailspike.net': { '198.51.100.13': '127.0.0.2' },
  'bl.blocklist.de': { '198.51.100.13': '127.0.0.2' },
  'dnsbl-3.uceprotect.net': { '192.0.2.12': '127.0.0.2' },
};

/** How the score stand-ins answer for an address: clean unless listed here. */
export type ScoreProfile = 'clean' | 'flagged' | 'tor' | 'partial' | 'down';

export const DEMO_SCORE_PROFILES: Readonly<Record<string, ScoreProfile>> = {
  '203.0.113.12': 'flagged',
  '198.51.100.13': 'tor',
  // IPQualityScore fails for this one: G and M still answer.
  '203.0.113.10': 'partial',
  // Every provider fails: the check is refunded.
  '192.0.2.14': 'down',
};
