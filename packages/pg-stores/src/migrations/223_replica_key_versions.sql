-- The secret key versions each replica can open (LATTICE_ENCRYPTION_KEY's), so that keys:rotate can
-- refuse to seal under one a live replica lacks. NULL: a replica of an older version, which did not say.
ALTER TABLE lattice_replica_presence ADD COLUMN key_versions text[];
