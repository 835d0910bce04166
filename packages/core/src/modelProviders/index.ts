export { InMemoryModelProviderStore, withoutApiKey } from "./inMemoryModelProviderStore";
export {
  requireKeyForNewDestination,
  requireEnabledFlag,
  requireModelName,
  requireModelProviderId,
  validateCreateModelProvider,
  validateDiscoveredModels,
  validateModelBaseUrl,
  validateUpdateModelProvider,
  type ValidModelProvider,
  type StoredProviderDestination,
  type ValidModelProviderUpdate,
} from "./modelProviderArguments";
