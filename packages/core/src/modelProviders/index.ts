export { InMemoryModelProviderStore, withoutApiKey } from "./inMemoryModelProviderStore";
export {
  requireKeyForNewDestination,
  requireModelProviderId,
  validateCreateModelProvider,
  validateModelBaseUrl,
  validateUpdateModelProvider,
  type ValidModelProvider,
  type StoredProviderDestination,
  type ValidModelProviderUpdate,
} from "./modelProviderArguments";
