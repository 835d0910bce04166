import { Annotation, START, StateGraph } from "@langchain/langgraph";

const State = Annotation.Root({
  name: Annotation<string>(),
  greeting: Annotation<string>(),
});

export const graph = new StateGraph(State)
  .addNode("greet", (state) => ({ greeting: `Hello, ${state.name}!` }))
  .addEdge(START, "greet")
  .compile();
