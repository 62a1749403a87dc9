import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CLEANLINESS_DEFAULT,
  dropRejectedField,
  emptyFilter,
  filterFromParams,
  filterPageDraft,
  ipPrefixProblem,
  isEmptyFilter,
  isRadiusActive,
  isRadiusSearchCountry,
  pagingFromParams,
  parseIpPrefix,
  resetFilterDraft,
  toAgentListQuery,
  toParams,
  withCountry,
} from './filters.ts';

describe('IP prefix (rules §5)', () => {
  it('takes the first part when it is a number above 0 and below 256', () => {
    assert.deepEqual(parseIpPrefix('198'), { ip1: 198 });
    assert.deepEqual(parseIpPrefix('198.'), { ip1: 198 });
    assert.deepEqual(parseIpPrefix('1'), { ip1: 1 });
    assert.deepEqual(parseIpPrefix('255'), { ip1: 255 });
    assert.deepEqual(parseIpPrefix('0'), {});
    assert.deepEqual(parseIpPrefix('256'), {});
    assert.deepEqual(parseIpPrefix('abc'), {});
    assert.deepEqual(parseIpPrefix(''), {});
  });

  it('takes the second part when it is a number from 0 to 255, each part on its own', () => {
    assert.deepEqual(parseIpPrefix('198.51'), { ip1: 198, ip2: 51 });
    assert.deepEqual(parseIpPrefix('198.0.7.9'), { ip1: 198, ip2: 0 });
    assert.deepEqual(parseIpPrefix(' 10.255 '), { ip1: 10, ip2: 255 });
    assert.deepEqual(parseIpPrefix('10.256'), { ip1: 10 });
    assert.deepEqual(parseIpPrefix('10.x'), { ip1: 10 });
    assert.deepEqual(parseIpPrefix('300.5'), { ip2: 5 });
    assert.deepEqual(parseIpPrefix('-1.5'), { ip2: 5 });
  });

  it('says which typed part is ignored', () => {
    assert.equal(ipPrefixProblem(''), null);
    assert.equal(ipPrefixProblem('198.51'), null);
    assert.equal(ipPrefixProblem('198.'), null);
    assert.match(ipPrefixProblem('0') ?? '', /first part/);
    assert.match(ipPrefixProblem('300.1') ?? '', /first part/);
    assert.match(ipPrefixProblem('10.999') ?? '', /second part/);
  });
});

describe('GET /agents query', () => {
  it('sends only the country and the page when nothing is filtered', () => {
    assert.deepEqual(toAgentListQuery(emptyFilter(), { page: 0, rowsPerPage: 10 }), {
      cc: 'US',
      cursor: 0,
      limit: 10,
    });
    assert.deepEqual(toAgentListQuery(emptyFilter('GB'), { page: 3, rowsPerPage: 20 }, true), {
      cc: 'GB',
      cursor: 60,
      limit: 20,
      segments: true,
    });
  });

  it('maps every filter field to its parameter', () => {
    const f = {
      ...emptyFilter('US'),
      reg: 'Texas',
      city: 'Austin',
      zip: '78701',
      isp: 'Example Fiber',
      ip: '198.51',
      stars: 7,
      type: 'shared' as const,
      conn: 'cell' as const,
      age: 'old' as const,
      geozip: '78701 ',
      georad: 50,
    };
    assert.deepEqual(toAgentListQuery(f, { page: 1, rowsPerPage: 50 }), {
      cc: 'US',
      cursor: 50,
      limit: 50,
      reg: 'Texas',
      city: 'Austin',
      zip: '78701',
      isp: 'Example Fiber',
      ip1: 198,
      ip2: 51,
      conn: 'cell',
      leases: 'some',
      fresh: false,
      exstars: 7,
      geozip: '78701',
      georad: 50,
    });
    const q = toAgentListQuery({ ...f, type: 'private', age: 'new' }, { page: 0, rowsPerPage: 10 });
    assert.equal(q.leases, 'none');
    assert.equal(q.fresh, true);
  });

  it('uses the radius search only with a centre, a radius above 0 and a listed country; uppercases the ZIP', () => {
    const base = { ...emptyFilter('CA'), geozip: 'k1a 0b1', georad: 10 };
    assert.equal(isRadiusActive(base), true);
    assert.equal(toAgentListQuery(base, { page: 0, rowsPerPage: 10 }).geozip, 'K1A 0B1');
    assert.equal(isRadiusActive({ ...base, georad: 0 }), false);
    assert.equal(isRadiusActive({ ...base, geozip: ' ' }), false);
    assert.equal(isRadiusActive({ ...base, cc: 'GB' }), false);
    assert.equal('geozip' in toAgentListQuery({ ...base, cc: 'GB' }, { page: 0, rowsPerPage: 10 }), false);
    for (const cc of ['US', 'CA', 'IT', 'AU', 'UA', 'PR']) assert.equal(isRadiusSearchCountry(cc), true, cc);
    for (const cc of ['GB', 'AE', 'CN', 'NL']) assert.equal(isRadiusSearchCountry(cc), false, cc);
  });
});

describe('filter in the address', () => {
  it('round-trips and leaves defaults out', () => {
    assert.equal(toParams(emptyFilter(), { page: 0, rowsPerPage: 10 }).toString(), '');
    const f = { ...emptyFilter('GB'), city: 'London', ip: '81.2', stars: 6, conn: 'wifi' as const };
    const params = toParams(f, { page: 2, rowsPerPage: 20 });
    assert.equal(params.toString(), 'cc=GB&city=London&ip=81.2&conn=wifi&stars=6&page=2&rows=20');
    assert.deepEqual(filterFromParams(params), f);
    assert.deepEqual(pagingFromParams(params), { page: 2, rowsPerPage: 20 });
  });

  it('falls back to defaults for malformed values', () => {
    const params = new URLSearchParams('cc=usa&stars=11&type=cheap&conn=5g&age=x&georad=500&page=-1&rows=30');
    assert.deepEqual(filterFromParams(params), emptyFilter('US'));
    assert.deepEqual(pagingFromParams(params), { page: 0, rowsPerPage: 10 });
    assert.equal(filterFromParams(new URLSearchParams('cc=gb')).cc, 'GB');
  });

  it('changing the country drops its location fields and the radius search', () => {
    const f = {
      ...emptyFilter('US'),
      reg: 'Texas',
      city: 'Austin',
      isp: 'X',
      conn: 'cell' as const,
      georad: 10,
    };
    assert.deepEqual(withCountry(f, 'GB'), { ...emptyFilter('GB'), conn: 'cell' });
    assert.equal(isEmptyFilter(emptyFilter('GB')), true);
    assert.equal(isEmptyFilter(f), false);
  });
});

describe("the Filter page's Cleanliness slider (rules §9: default 6)", () => {
  it('starts at 6 when the shop has no clean-score filter, and after Reset', () => {
    assert.equal(CLEANLINESS_DEFAULT, 6);
    assert.equal(filterPageDraft(new URLSearchParams('city=Austin')).stars, 6);
    assert.equal(filterPageDraft(new URLSearchParams('stars=8')).stars, 8);
    assert.equal(resetFilterDraft('GB').stars, 6);
    assert.equal(resetFilterDraft('GB').cc, 'GB');
  });

  it('keeps a chosen "Any" (1) in the address, and asks the API for every score then', () => {
    const any = { ...emptyFilter('US'), stars: 1 };
    assert.equal(toParams(any).get('stars'), '1');
    assert.equal(filterPageDraft(toParams(any)).stars, 1, 'reopening the Filter page keeps Any');
    assert.equal(toAgentListQuery(any, { page: 0, rowsPerPage: 10 }).exstars, undefined);
    assert.equal(toAgentListQuery({ ...any, stars: 6 }, { page: 0, rowsPerPage: 10 }).exstars, 6);
  });
});

describe('a filter value the API refuses (400 naming the field)', () => {
  const bad = { ...emptyFilter('US'), city: 'Austin', geozip: '99999', georad: 30 };

  it('drops an unknown postal code and its radius, keeps the rest, and says so', () => {
    const dropped = dropRejectedField(bad, { error: 'VALIDATION_FAILED', message: 'x', field: 'geozip' });
    assert.deepEqual(dropped?.filter, { ...emptyFilter('US'), city: 'Austin' });
    assert.equal(
      dropped?.message,
      'Unknown ZIP/postal code for this country: 99999 was removed from the search.',
    );
  });

  it('drops any other named filter field the same way; nothing to drop is null', () => {
    const ip = dropRejectedField({ ...emptyFilter('US'), ip: '9.x' }, { field: 'ip2' });
    assert.equal(ip?.filter.ip, '');
    assert.match(ip?.message ?? '', /The IP "9\.x" was not accepted/);
    assert.equal(dropRejectedField(bad, { field: 'limit' }), null, 'not a filter field');
    assert.equal(dropRejectedField(emptyFilter('US'), { field: 'geozip' }), null, 'already empty: no loop');
    assert.equal(dropRejectedField(bad, 'not json'), null);
  });
});
