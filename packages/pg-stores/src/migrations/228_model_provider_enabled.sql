-- A model provider an operator switched off: assistants naming it are refused, their runs fail
-- (MODEL_DISABLED). Existing providers stay on.
ALTER TABLE lattice_model_providers ADD COLUMN enabled boolean NOT NULL DEFAULT true;
