export {
  DEVELOPMENT_KEY_VERSION,
  SecretDecryptionError,
  SecretKeyring,
  SecretKeyringError,
  keyringFromEnvironment,
  type KeyringFromEnvironment,
} from "./secretKeyring";
export { SecretsRequiredError } from "./secretsRequiredError";
