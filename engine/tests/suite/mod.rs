mod llm;
