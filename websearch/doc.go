// Package websearch holds the web search engines the gateway runs for a
// request that asks to search the web (OpenRouter's web plugin, the :online
// variant, web_search_options): today Yandex Search API v2 in its
// synchronous mode. An engine turns a query into results (URL, title,
// snippet), every result bounded in size so that the prompt it goes into
// can be reserved for before the search runs; the engine's address is
// dialled through netguard.
package websearch
