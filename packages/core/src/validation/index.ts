export { INT32_MAX, INT32_MIN, fieldRules } from "./fieldRules";
export { definedFields, parseStoreArgument } from "./parseStoreArgument";
