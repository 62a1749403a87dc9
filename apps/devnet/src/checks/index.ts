/** The checks' stand-ins: a DNSBL server on loopback UDP and the three score providers over HTTP. */
export { DEMO_DNSBL_LISTINGS, DEMO_SCORE_PROFILES, type ScoreProfile } from './demo.ts';
export { type DnsblListings, type DnsblServer, startDnsblServer } from './dns.ts';
export { type ScoreStandIns, startScoreStandIns } from './providers.ts';
