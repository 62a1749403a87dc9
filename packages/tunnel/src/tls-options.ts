import type tls from 'node:tls';

/**
 * The tunnel's TLS on both sides: TLS 1.3 only, AES-128-GCM first (the cheapest AEAD on CPUs with
 * AES instructions, as our servers have), then the other TLS 1.3 suites.
 */
export const TUNNEL_TLS = {
  minVersion: 'TLSv1.3',
  ciphers: 'TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256',
} as const satisfies tls.SecureContextOptions;
