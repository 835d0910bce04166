// Expiry is judged by the database clock (now()) so replicas with skewed clocks agree.
//
// Each statement is named, so PostgreSQL parses and plans it once per connection instead of on every
// call: for the acquire upsert that planning cost more than the write itself (figure B3).

/** A statement run by name: prepared on a connection's first use, then executed from the cache. */
export interface NamedStatement {
  readonly name: string;
  readonly text: string;
}

const RETURNING = "RETURNING key, holder, token::text AS token, acquired_at, expires_at";

/**
 * Takes a free or expired key, or extends the caller's own. A new tenure draws a new fencing token;
 * the caller's own live lease keeps its token and acquisition time.
 *
 * Tokens must grow with every tenure of a key, so a takeover draws its token in the update branch,
 * which runs only once the row is locked: a token drawn before waiting (as `VALUES` does, while a
 * competing acquisition holds the row) may be older than the tenure that commits meanwhile. The
 * `VALUES` token is used only for a key's first row ever, since release keeps the row.
 */
export const ACQUIRE_LEASE: NamedStatement = {
  name: "lattice_lease_acquire",
  text: `
  INSERT INTO lattice_leases AS lease (key, holder, token, acquired_at, renewed_at, expires_at)
  VALUES ($1, $2, nextval('lattice_lease_tokens'), now(), now(), now() + $3 * interval '1 millisecond')
  ON CONFLICT (key) DO UPDATE
     SET holder      = excluded.holder,
         token       = CASE WHEN lease.holder = excluded.holder AND lease.expires_at > now()
                            THEN lease.token ELSE nextval('lattice_lease_tokens') END,
         acquired_at = CASE WHEN lease.holder = excluded.holder AND lease.expires_at > now()
                            THEN lease.acquired_at ELSE excluded.acquired_at END,
         renewed_at  = excluded.renewed_at,
         expires_at  = excluded.expires_at
   WHERE lease.expires_at <= now() OR lease.holder = excluded.holder
  ${RETURNING}`,
};

export const RENEW_LEASE: NamedStatement = {
  name: "lattice_lease_renew",
  text: `
  UPDATE lattice_leases
     SET renewed_at = now(),
         expires_at = now() + $3 * interval '1 millisecond'
   WHERE key = $1 AND holder = $2 AND expires_at > now()`,
};

/**
 * Ends the holder's tenure by expiring it, never by deleting the row: a deleted row would send the
 * next acquisition down the insert branch, with a token drawn before it waited (see ACQUIRE_LEASE).
 * A released row expires at -infinity, which also tells it from one that merely ran out: releasing
 * twice answers false the second time, as with a deleted row.
 */
export const RELEASE_LEASE: NamedStatement = {
  name: "lattice_lease_release",
  text: `
  UPDATE lattice_leases
     SET expires_at = '-infinity'
   WHERE key = $1 AND holder = $2 AND expires_at > '-infinity'`,
};

export const GET_LEASE: NamedStatement = {
  name: "lattice_lease_get",
  text: `
  SELECT key, holder, token::text AS token, acquired_at, expires_at
    FROM lattice_leases
   WHERE key = $1 AND expires_at > now()`,
};

/** Live leases whose key starts with $1, at most $2, in byte order of the key (as the in-memory store sorts). */
export const LIST_LEASES: NamedStatement = {
  name: "lattice_lease_list",
  text: `
  SELECT key, holder, token::text AS token, acquired_at, expires_at
    FROM lattice_leases
   WHERE expires_at > now() AND starts_with(key, $1)
   ORDER BY key COLLATE "C"
   LIMIT $2`,
};
