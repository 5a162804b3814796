Feature: Retrieval quality
  The files the agent surfaces and reads are scored against the ground
  truth with trec_eval's definitions: plain names rank the files surfaced,
  names starting with "read." the files whose content the agent saw.

  Scenario: The token-expiry fix finds both relevant files early
    Given the trace "../testdata/examples/fix-token-expiry.claude.jsonl"
    And the ground truth from "../testdata/examples/fix-token-expiry.groundtruth.json"
    Then recall@5 is at least 0.8
    And mrr is at least 1
    And read.recall@3 is at least 100%
    And line_coverage is at least 0.9
    And ttfr_steps is at most 1
    And the agent calls "mcp__sourcegraph__*"

  Scenario: Graded ground truth from a table
    Given the trace "../testdata/metrics/search-read-edit.toolcalls.json"
    And the ground truth files:
      | file               | grade |
      | pkg/auth/token.go  | 2     |
      | pkg/auth/errors.go | 1     |
    Then ndcg@5 is at least 0.95
    And precision@1 is at least 1
    And read.mrr is at most 0.5

  Scenario: Localization and context measures
    Given the trace "../testdata/metrics/search-read-edit.toolcalls.json"
    And the ground truth from "../testdata/metrics/search-read-edit.groundtruth.yaml"
    Then acc@3 is at least 1
    And acc@1 is at most 0
    And coverage_auc is at least 0.55
    And read.coverage_auc_tokens is at most 0.45
    And evidence_drop is at most 1
    And line_context_efficiency is at least 0.4
    And line_recall@20 is at most 0.7
    And line_recall@100 is at least 0.85

  Scenario: A subagent's search counts as retrieval
    Given the trace "../testdata/metrics/subagent-mcp.toolcalls.json"
    And the ground truth from "../testdata/metrics/subagent-mcp.groundtruth.json"
    Then success@1 is at least 1
    And recall@5 is at most 0.5

  Scenario: The whole token-expiry scenario file passes
    Then the scenario "../scenarios/fix-token-expiry.yaml" passes
