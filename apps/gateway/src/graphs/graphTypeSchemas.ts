import { dirname, extname } from "node:path";
import ts from "typescript";
import { buildGenerator, type Definition } from "typescript-json-schema";

/** A graph's JSON schemas as its TypeScript types give them; null where a type gives none. */
export interface TypeSchemas {
  state: Definition | null;
  input: Definition | null;
  output: Definition | null;
  config: Definition | null;
}

const TYPESCRIPT_SOURCE = new Set([".ts", ".mts", ".cts", ".tsx"]);

/** Type names the added declarations start with, so they clash with none of the graph's. */
const PREFIX = "__axiomSchema";

/**
 * Helper types appended to the graph's module. A graph's state, input, output and config exist only
 * as types when its state is an `Annotation`: these read them off the exported value's type, whether
 * it is compiled, a `StateGraph` to compile, a promise of one, or a factory. Message types (any
 * subclass, any message-like union) read as `BaseMessage`, as the platform's schemas show them, and
 * a reducer's `Overwrite` wrapper is dropped. Nesting deeper than three levels reads as `any`: the
 * generator would otherwise walk LangChain's own types without end.
 */
const HELPERS = `
import type { BaseMessage as ${PREFIX}Message } from "@langchain/core/messages";
import type { StateDefinition as ${PREFIX}Definition, StateType as ${PREFIX}Values, UpdateType as ${PREFIX}Update } from "@langchain/langgraph";
type ${PREFIX}Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type ${PREFIX}IsAny<T> = 0 extends 1 & T ? true : false;
type ${PREFIX}AsMessage<T> = T extends ${PREFIX}Message ? ${PREFIX}Message : never;
type ${PREFIX}AsMessages<T> = T extends Array<infer E> ? (${PREFIX}Same<${PREFIX}AsMessage<E>, ${PREFIX}Message> extends true ? ${PREFIX}Message[] : never) : never;
type ${PREFIX}Plain<T> = Exclude<T, { __overwrite__: any }>;
type ${PREFIX}Value<T, D extends 0[]> = ${PREFIX}IsAny<T> extends true ? T
  : ${PREFIX}Same<${PREFIX}AsMessages<${PREFIX}Plain<T>>, ${PREFIX}Message[]> extends true ? ${PREFIX}Message[]
  : ${PREFIX}Same<${PREFIX}AsMessage<${PREFIX}Plain<T>>, ${PREFIX}Message> extends true ? ${PREFIX}Message
  : ${PREFIX}Shape<${PREFIX}Plain<T>, [0, ...D]>;
type ${PREFIX}Shape<T, D extends 0[] = []> = D extends [0, 0, 0] ? any : T extends unknown ? { [K in keyof T]: ${PREFIX}Value<T[K], D> } : never;
type ${PREFIX}Graph<T> = Awaited<T extends (...args: any[]) => infer R ? R : T>;
type ${PREFIX}Compiled<T> = ${PREFIX}Graph<T> extends { compile(...args: any[]): infer C } ? C : ${PREFIX}Graph<T>;
type ${PREFIX}UpdateOf<T> = ${PREFIX}Compiled<T> extends { "~InputType": infer U } ? U : never;
type ${PREFIX}Builder<T> = ${PREFIX}Compiled<T> extends { builder: { _inputDefinition: infer I extends ${PREFIX}Definition; _outputDefinition: infer O extends ${PREFIX}Definition; _configSchema?: infer C } }
  ? { input: ${PREFIX}Update<I>; output: ${PREFIX}Values<O>; config: C extends ${PREFIX}Definition ? ${PREFIX}Update<C> : never }
  : never;
type ${PREFIX}NotAny<T> = ${PREFIX}IsAny<T> extends true ? never : T;
`;

const KINDS = ["state", "input", "output", "config"] as const;

/** The declarations that name one graph's four types; `value` is the graph's variable. */
const typesOf = (index: number, value: string) => `
export type ${PREFIX}${index}_state = ${PREFIX}Shape<${PREFIX}UpdateOf<typeof ${value}>>;
export type ${PREFIX}${index}_input = ${PREFIX}Shape<${PREFIX}NotAny<${PREFIX}Builder<typeof ${value}>["input"]>>;
export type ${PREFIX}${index}_output = ${PREFIX}Shape<${PREFIX}NotAny<${PREFIX}Builder<typeof ${value}>["output"]>>;
export type ${PREFIX}${index}_config = ${PREFIX}Shape<${PREFIX}NotAny<${PREFIX}Builder<typeof ${value}>["config"]>>;
`;

/** A graph reached from the exported one: where it sits (`parent|child`) and the variable that holds it. */
interface FoundGraph {
  namespace: string;
  variable: string;
}

/**
 * The JSON schemas (draft-07) of the graph that `exportName` of `file` exports, and of the subgraphs
 * its source adds as nodes, by namespace: `""` for the graph itself, then `node`, `node|child`, … as
 * LangGraph names them. For graphs whose types say what runtime schemas cannot (an `Annotation`
 * state): the TypeScript compiler infers them from the source, as the LangGraph JS API server does.
 * Slow (seconds: it type-checks the graph and what it imports); only TypeScript sources have types.
 */
export function extractGraphTypeSchemas(file: string, exportName: string): Record<string, TypeSchemas> {
  if (!TYPESCRIPT_SOURCE.has(extname(file))) return {};
  const options = compilerOptionsFor(file);
  const host = cachingHost(options);
  const first = ts.createProgram({ rootNames: [file], options, host });
  const root = rootDeclaration(first, file, exportName);
  if (!root) return {};
  const graphs = [{ namespace: "", variable: root.name.getText() }, ...subgraphsOf(first, root)];

  // Declarations appended to the module itself: subgraphs are seldom exported, and its own scope sees them.
  const source = first.getSourceFile(file)!;
  const augmented = `${source.text}\n${HELPERS}${graphs.map(({ variable }, index) => typesOf(index, variable)).join("")}`;
  host.replace(file, augmented);
  const program = ts.createProgram({ rootNames: [file], options, host, oldProgram: first });

  // Graphs rarely type-check cleanly against every option; the types that matter still resolve.
  const generator = buildGenerator(program, { ignoreErrors: true });
  if (!generator) return {};
  const schemaOf = (name: string): Definition | null => {
    try {
      return withPlainDefinitionNames(generator.getSchemaForSymbol(name));
    } catch {
      return null;
    }
  };
  return Object.fromEntries(
    graphs.map(({ namespace }, index) => [namespace, Object.fromEntries(KINDS.map((kind) => [kind, schemaOf(`${PREFIX}${index}_${kind}`)])) as unknown as TypeSchemas]),
  );
}

/**
 * The graph's project's own options (its nearest tsconfig.json), strict as the platform reads types.
 * Without its own `lib`, the DOM's types are left out: a server's graph has no use for them, and the
 * generator would walk every one of them.
 */
function compilerOptionsFor(file: string): ts.CompilerOptions {
  const defaults: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    lib: ["lib.es2022.d.ts"],
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    esModuleInterop: true,
    skipLibCheck: true,
  };
  const configFile = ts.findConfigFile(dirname(file), ts.sys.fileExists);
  const own = configFile ? ts.parseJsonConfigFileContent(ts.readConfigFile(configFile, ts.sys.readFile).config, ts.sys, dirname(configFile)).options : {};
  return { ...defaults, ...own, strict: true, noEmit: true };
}

/** A compiler host whose source files are parsed once, so the second program reuses the first's, with one file's text replaced. */
function cachingHost(options: ts.CompilerOptions): ts.CompilerHost & { replace(file: string, text: string): void } {
  const host = ts.createCompilerHost(options, true);
  const parsed = new Map<string, ts.SourceFile | undefined>();
  const replaced = new Map<string, string>();
  const getSourceFile: ts.CompilerHost["getSourceFile"] = (fileName, languageVersion, onError, shouldCreate) => {
    const text = replaced.get(fileName);
    if (text !== undefined) return ts.createSourceFile(fileName, text, languageVersion, true);
    if (!parsed.has(fileName)) parsed.set(fileName, host.getSourceFile(fileName, languageVersion, onError, shouldCreate));
    return parsed.get(fileName);
  };
  return { ...host, getSourceFile, replace: (file, text) => replaced.set(file, text) };
}

/**
 * The subgraphs reachable from the export's declaration: a node added with `addNode("name", x)` whose
 * `x` is, calls or closes over a variable holding a graph (compiled or not) is a subgraph named
 * `name`, and its own declaration is searched the same way. A declaration that adds no node but
 * refers to a graph (`workflow.compile()`) is searched through that graph's.
 */
function subgraphsOf(program: ts.Program, root: ts.VariableDeclaration): FoundGraph[] {
  const checker = program.getTypeChecker();
  const source = root.getSourceFile();

  const isGraph = (node: ts.Node) => {
    const type = checker.getTypeAtLocation(node);
    return type.getProperty("lg_is_pregel") !== undefined || (type.getProperty("compile") !== undefined && type.getProperty("compiled") !== undefined);
  };
  /** Variables holding graphs that `node` refers to, each with its declaration when it is in this file. */
  const graphVariables = (node: ts.Node) => {
    const found = new Map<string, ts.VariableDeclaration | undefined>();
    const visit = (child: ts.Node) => {
      if (ts.isIdentifier(child) && !found.has(child.text)) {
        const symbol = checker.getSymbolAtLocation(child);
        const declaration = symbol?.declarations?.find((d) => ts.isVariableDeclaration(d) || ts.isImportSpecifier(d) || ts.isImportClause(d));
        if (declaration && isGraph(declaration)) found.set(child.text, ts.isVariableDeclaration(declaration) && declaration.getSourceFile() === source ? declaration : undefined);
      }
      ts.forEachChild(child, visit);
    };
    visit(node);
    return found;
  };

  const result: FoundGraph[] = [];
  // `within`: the declarations searched on the way here, so that one referring back to them ends the search.
  const search = (declaration: ts.VariableDeclaration, namespace: string[], within: ReadonlySet<ts.Node>) => {
    if (!declaration.initializer || within.has(declaration)) return;
    const path = new Set(within).add(declaration);
    const added: { node: string; variable: string; declaration?: ts.VariableDeclaration }[] = [];
    const visit = (node: ts.Node) => {
      if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === "addNode") {
        const [name, value] = node.arguments;
        if (name && ts.isStringLiteralLike(name) && value) {
          // A node that runs several graphs has no one subgraph: the first stands for it, as on the platform.
          const [first] = graphVariables(value);
          if (first) added.push({ node: name.text, variable: first[0], declaration: first[1] });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(declaration.initializer);
    if (added.length === 0) {
      for (const referred of graphVariables(declaration.initializer).values()) if (referred) search(referred, namespace, path);
      return;
    }
    for (const { node, variable, declaration: inner } of added) {
      result.push({ namespace: [...namespace, node].join("|"), variable });
      if (inner) search(inner, [...namespace, node], path);
    }
  };
  search(root, [], new Set());
  return result;
}

/** The module's own variable that the export names (`export const graph`, `export default graph`), if it is one. */
function rootDeclaration(program: ts.Program, file: string, exportName: string): ts.VariableDeclaration | undefined {
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  const moduleSymbol = source && checker.getSymbolAtLocation(source);
  let symbol = moduleSymbol && checker.getExportsOfModule(moduleSymbol).find((exported) => exported.name === exportName);
  if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
  const declaration = symbol?.declarations?.find(ts.isVariableDeclaration);
  return declaration && declaration.getSourceFile() === source && ts.isIdentifier(declaration.name) ? declaration : undefined;
}

/**
 * Definitions named as LangChain's types are known (`BaseMessage<…>`), not as the compiler prints a
 * type it reaches through another module (`import("/…/@langchain/core/…").BaseMessage<…>`), and
 * `$ref`s that spell their names as they are, as the platform's do, not percent-encoded.
 */
function withPlainDefinitionNames(schema: Definition): Definition {
  const definitions = schema.definitions;
  if (!definitions) return schema;
  const names = new Map<string, string>();
  const taken = new Set(Object.keys(definitions));
  for (const name of Object.keys(definitions)) {
    const plain = name.replace(/import\("[^"]*"\)\./g, "");
    if (plain !== name && !taken.has(plain)) {
      names.set(name, plain);
      taken.add(plain);
    }
  }
  const prefix = "#/definitions/";
  const json = JSON.stringify(schema, (key, value: unknown) => {
    if (key !== "$ref" || typeof value !== "string" || !value.startsWith(prefix)) return value;
    const name = decodeURIComponent(value.slice(prefix.length));
    return prefix + (names.get(name) ?? name);
  });
  const result = JSON.parse(json) as Definition & { definitions: Record<string, Definition> };
  for (const [from, to] of names) {
    result.definitions[to] = result.definitions[from];
    delete result.definitions[from];
  }
  return result;
}
