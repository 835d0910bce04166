export { InMemoryApiKeyStore } from "./inMemoryApiKeyStore";
export { type ValidApiKey, requireApiKeyId, requireSecretHash, requireTime, validateCreateApiKey } from "./apiKeyArguments";
