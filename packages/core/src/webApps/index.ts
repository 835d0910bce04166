export { InMemoryWebAppStore } from "./inMemoryWebAppStore";
export {
  requireSecretGrace,
  requireWebAppId,
  requireWebAppUserId,
  updatedAppearance,
  validateCreateWebApp,
  validateUpdateWebApp,
  validateWebAppOrigin,
  type ValidWebApp,
  type ValidWebAppUpdate,
} from "./webAppArguments";
