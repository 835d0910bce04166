import { Client } from "@langchain/langgraph-sdk";
import { type FormEvent, useEffect, useMemo, useState } from "react";
import { Chat } from "./Chat";
import { type Failure, FailureView, describe } from "./failures";
import {
  API_URL,
  type Authentication,
  type Credentials,
  clientOptions,
  gatewayAuthentication,
  readLocation,
  saveCredentials,
  savedCredentials,
  writeLocation,
} from "./connection";

/** The graph every gateway assistant runs. */
const GRAPH = "react";

/**
 * What the page creates for a tenant with no assistant: the scripted model (no key needed) and the
 * built-in tools. Its fixed id makes two pages opening at once create one.
 */
const STARTER_ASSISTANT = { graphId: GRAPH, assistantId: "playground", name: "Playground", context: { tools: ["echo", "clock"] }, ifExists: "do_nothing" as const };

interface AssistantChoice {
  assistant_id: string;
  name: string;
}

/** The page: who to talk as (token, tenant), which assistant, then the chat on a thread. */
export function Playground() {
  const [credentials, setCredentials] = useState<Credentials>(savedCredentials);
  // Unknown until the gateway says: no tenant field meanwhile, and nothing asked of the API.
  const [authentication, setAuthentication] = useState<Authentication>();
  const client = useMemo(() => authentication && new Client({ apiUrl: API_URL, ...clientOptions(credentials, authentication) }), [credentials, authentication]);
  const [assistants, setAssistants] = useState<AssistantChoice[]>([]);
  const [assistantId, setAssistantId] = useState<string | undefined>(() => readLocation().assistantId);
  const [error, setError] = useState<Failure>();

  useEffect(() => {
    void gatewayAuthentication().then(setAuthentication);
  }, []);

  useEffect(() => {
    if (!client) return;
    let current = true;
    setError(undefined);
    loadAssistants(client).then(
      (found) => {
        if (!current) return;
        setAssistants(found);
        setAssistantId((chosen) => (chosen && found.some((each) => each.assistant_id === chosen) ? chosen : found[0]?.assistant_id));
      },
      (failure: unknown) => current && setError(describe(failure)),
    );
    return () => {
      current = false;
    };
  }, [client]);

  const connect = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const next = { token: String(form.get("token") ?? ""), tenant: String(form.get("tenant") ?? credentials.tenant) };
    saveCredentials(next);
    setCredentials(next);
  };

  const choose = (id: string) => {
    setAssistantId(id);
    writeLocation({ assistantId: id, threadId: null });
  };

  return (
    <div className="page">
      <header>
        <h1>axiom-lattice playground</h1>
        <form className="credentials" onSubmit={connect}>
          <input name="token" type="password" autoComplete="off" aria-label="Token" placeholder="Bearer token" defaultValue={credentials.token} />
          {/* With authentication on, the token decides the tenant: a tenant field would mean nothing. */}
          {authentication === "none" && <input name="tenant" aria-label="Tenant" placeholder="Tenant" defaultValue={credentials.tenant} />}
          <button type="submit">Connect</button>
        </form>
        <select aria-label="Assistant" value={assistantId ?? ""} onChange={(event) => choose(event.target.value)} disabled={assistants.length === 0}>
          {assistants.map((each) => (
            <option key={each.assistant_id} value={each.assistant_id}>
              {each.name || each.assistant_id}
            </option>
          ))}
        </select>
      </header>
      {error && <FailureView failure={error} />}
      {client && assistantId && !error && <Chat key={`${assistantId}:${credentials.token}:${credentials.tenant}`} client={client} assistantId={assistantId} />}
    </div>
  );
}

/**
 * The tenant's own assistants, newest first; a starter one when it has none yet. The graph's default
 * assistant (`created_by: "system"`, no tools) is left out: the starter shows more.
 */
async function loadAssistants(client: Client): Promise<AssistantChoice[]> {
  const found = await client.assistants.search({ graphId: GRAPH, limit: 100, sortBy: "created_at", sortOrder: "desc" });
  const own = found.filter((assistant) => assistant.metadata?.created_by !== "system");
  return own.length > 0 ? own : [await client.assistants.create(STARTER_ASSISTANT)];
}
