export { InMemoryModelProviderStore, withoutApiKey } from "./inMemoryModelProviderStore";
export {
  requireModelProviderId,
  validateCreateModelProvider,
  validateModelBaseUrl,
  validateUpdateModelProvider,
  type ValidModelProvider,
  type ValidModelProviderUpdate,
} from "./modelProviderArguments";
