"""The LLM analyst: ChatOpenAI against any OpenAI-compatible endpoint, function-calling structured output."""

from graph.analysts.llm.analyst import LlmAnalyst, build_llm_analyst
from graph.analysts.llm.model import ModelConfig, ModelGate, build_chat_model

__all__ = ["LlmAnalyst", "ModelConfig", "ModelGate", "build_chat_model", "build_llm_analyst"]
