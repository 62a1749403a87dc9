import { z } from 'zod';
import { ZCents, ZErrorBody } from './common.ts';

/** Rules §9: the volumes (Gb), port counts, periods (days) and rotation timers (minutes) sold. */
export const PORT_VOLUMES_GB = [1, 2, 3, 5, 10, 15, 20, 30, 40, 50, 60, 70, 80, 90, 100] as const;
export const PORT_COUNTS = [100, 200, 300, 400] as const;
export const PORT_PERIODS = [1, 7, 30] as const;
export const PORT_TIMERS = [5, 10, 15] as const;
/** Whitelist sizes: traffic packages and the unlimited port. */
export const PORT_WHITELIST_MAX = 20;
export const PORT_WHITELIST_MAX_UNLIMITED = 1;
/** The rotation link rotates a port at most this often. */
export const PORT_ROTATION_MIN_MS = 5 * 60_000;

const ZIpv4 = z
  .string()
  .regex(
    /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/,
    'must be an IPv4 address',
  );

/** A whitelist as the client sends it: a list, or the comma-separated field text. */
export const ZPortWhitelist = z
  .union([z.array(z.string().trim()), z.string().max(2000)])
  .transform((v) =>
    (typeof v === 'string' ? v.split(',') : v).map((s) => s.trim()).filter((s) => s.length > 0),
  )
  .pipe(z.array(ZIpv4).max(PORT_WHITELIST_MAX));

const oneOf = <T extends readonly number[]>(values: T, what: string) =>
  z.coerce
    .number()
    .refine((n) => values.includes(n), { message: `${what} must be one of ${values.join(', ')}` });

export const ZPortTraffic = z
  .object({
    type: z.enum(['limit', 'unlimit']),
    /** Volume in Gb; ignored (0) for unlimited. */
    amount: z.coerce.number().optional(),
  })
  .strict()
  .superRefine((t, ctx) => {
    if (t.type === 'limit' && !PORT_VOLUMES_GB.includes((t.amount ?? 0) as 1)) {
      ctx.addIssue({
        code: 'custom',
        path: ['amount'],
        message: `amount must be one of ${PORT_VOLUMES_GB.join(', ')}`,
      });
    }
  });

const ZGeoName = z.string().trim().max(100).default('');

export const ZPortGeo = z
  .object({
    region: ZGeoName.optional(),
    country: z
      .string()
      .trim()
      .regex(/^[A-Za-z]{2}$/, 'must be a 2-letter country code')
      .transform((s) => s.toUpperCase()),
    state: ZGeoName.optional(),
    city: ZGeoName.optional(),
    connection_type: z.enum(['wifi', 'mobile', 'both']).default('both'),
  })
  .strict();

export const ZPortSwitch = z
  .object({
    type: z.enum(['timer', 'api']),
    timer: oneOf(PORT_TIMERS, 'timer').optional(),
  })
  .strict();

export const ZPortAccessRequest = z
  .object({
    type: z.enum(['auth', 'whitelist']),
    whitelist_ips: ZPortWhitelist.optional(),
    port_amount: z.coerce.number().int().min(1).max(400).optional(),
  })
  .strict();

/** `POST /price`: what a package would cost. */
export const ZPortPriceRequest = z
  .object({
    time_period: oneOf(PORT_PERIODS, 'time_period'),
    traffic: ZPortTraffic,
    geo: ZPortGeo,
    access: ZPortAccessRequest,
  })
  .strict();
export type TPortPriceRequest = z.infer<typeof ZPortPriceRequest>;

export const ZPortPriceResponse = z.object({ price: ZCents });

/** `POST /package/create`: the New-port request (rules §3). `price` is the price the user saw. */
export const ZNewPortRequest = z
  .object({
    user_id: z.string().min(1).max(200),
    user_email: z.string().max(320).optional(),
    price: ZCents,
    time_period: oneOf(PORT_PERIODS, 'time_period'),
    traffic: ZPortTraffic,
    geo: ZPortGeo,
    access: ZPortAccessRequest,
    switch: ZPortSwitch,
  })
  .strict();
export type TNewPortRequest = z.infer<typeof ZNewPortRequest>;

/** A port package (rules §3) as the Ports page reads it. */
export const ZPortPackage = z.object({
  id: z.string(),
  price: ZCents,
  time_period: z.number().int(),
  traffic: z.object({ type: z.enum(['limit', 'unlimit']), amount: z.number() }),
  geo: z.object({
    region: z.string(),
    country: z.string(),
    state: z.string(),
    city: z.string(),
    connection_type: z.enum(['wifi', 'mobile', 'both']),
  }),
  switch: z.object({
    type: z.enum(['timer', 'api']),
    timer: z.number().int().nullable(),
    api_key: z.string(),
  }),
  access: z.object({
    type: z.enum(['auth', 'whitelist']),
    auth_login: z.string(),
    auth_password: z.string(),
    whitelist_ips: z.array(z.string()),
    port_service_ip: z.string(),
    port_service_host: z.string(),
    ports: z.array(z.number().int()),
    /** The HTTP proxy port beside each SOCKS5 port: SOCKS port + `http_port_offset`. */
    http_port_offset: z.number().int(),
    port_amount: z.number().int(),
  }),
  status: z.object({ type: z.enum(['active', 'suspend', 'refunded']), reason: z.string().nullable() }),
  date_start: z.string(),
  date_finish: z.string(),
  stats: z.object({
    requests: z.number(),
    errors: z.number(),
    /** Connections refused for a wrong login or password (never inside `errors`). */
    auth_fails: z.number(),
    upload: z.number(),
    download: z.number(),
  }),
  /** The refund rule holds now (10 MB or less, less than half of the period). */
  refundable: z.boolean(),
  /** Each port's current exit (the agent's public address), for the ports that have carried traffic. */
  exits: z.array(z.object({ port: z.number().int(), ip: z.string() })),
});
export type TPortPackage = z.infer<typeof ZPortPackage>;

export const ZPortPackages = z.object({ packages: z.array(ZPortPackage) });

export const ZPortUserParams = z.object({ id: z.string().min(1).max(200) });
export const ZPortPackageParams = z.object({ id: z.string().min(1).max(100) });

export const ZPortWhitelistRequest = z
  .object({ package_id: z.string().min(1).max(100), whitelist_ips: ZPortWhitelist })
  .strict();

export const ZPortRotateParams = z.object({
  port: z.coerce.number().int().min(1).max(65535),
  key: z.string().min(1).max(100),
});
export const ZPortRotateResponse = z.object({ port: z.number().int(), rotated: z.literal(true) });

export const ZPortGeoListQuery = z.object({
  country: z.string().trim().min(1).max(100).optional(),
  state: z.string().trim().max(100).optional(),
});
/** `GET /list/geo/state` and `/list/geo/city`: the country is required there. */
export const ZPortGeoChildQuery = ZPortGeoListQuery.extend({ country: z.string().trim().min(1).max(100) });
export const ZPortCountries = z.object({
  countries: z.array(z.object({ code: z.string(), name: z.string(), count: z.number().int() })),
});
export const ZPortStates = z.object({
  states: z.array(z.object({ name: z.string(), count: z.number().int() })),
});
export const ZPortCities = z.object({
  cities: z.array(z.object({ name: z.string(), count: z.number().int() })),
});

/** `GET /package/traffic/{id}`: the package's traffic per UTC hour, oldest first (CSV: `.csv`, the leases' header). */
export const ZPortTrafficResponse = z.object({
  packageID: z.string(),
  hours: z.array(
    z.object({
      hour: z.string(),
      reqs: z.number().int(),
      fails: z.number().int(),
      /** Connections refused for a wrong login or password that hour (not in `fails`). */
      authFails: z.number().int(),
      inBytes: z.number().int(),
      outBytes: z.number().int(),
    }),
  ),
});
export type TPortTrafficResponse = z.infer<typeof ZPortTrafficResponse>;

/** One row of the port price table (`GET|PUT /pricing/ports`). */
export const PORT_PRICE_KEYS = {
  gb: ['1', '7', '30'],
  unlimit: ['1', '7', '30'],
  ports: ['100', '200', '300', '400'],
  geo: ['country', 'state', 'city'],
  conn: ['wifi', 'mobile', 'both'],
  access: ['auth', 'whitelist'],
} as const;
export const ZPortPriceRow = z
  .object({
    kind: z.enum(['gb', 'unlimit', 'ports', 'geo', 'conn', 'access']),
    key: z.string().max(20),
    /** Cents for gb (per Gb), unlimit and ports; a percent (1-1000) for geo, conn and access. */
    value: z.number().int().min(0).max(100_000_000_000),
  })
  .strict();
export const ZPortPricing = z.object({
  rows: z.array(ZPortPriceRow),
  updatedAt: z.string().nullable(),
  updatedBy: z.string().nullable(),
});
export const ZPortPricingBody = z.object({ rows: z.array(ZPortPriceRow).min(1).max(50) }).strict();
export type TPortPriceRow = z.infer<typeof ZPortPriceRow>;

/** The Ports API's errors carry `error` (rules §7); a stale price answers the price, the rotation rule when to retry. */
export const ZPortsError = ZErrorBody.extend({
  price: z.number().int().optional(),
  retryAfterSeconds: z.number().int().optional(),
});
