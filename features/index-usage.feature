Feature: Index usage
  An agent that has a semantic index should find code through it: most of
  its discovery calls go to the index, and it reaches a file it must change
  within a few calls.

  Scenario: The agent finds the order service through the index
    Given the trace "../testdata/examples/add-coupon-support.aura.toolcalls.json"
    And the taxonomy profile "aura"
    And the ground truth files:
      | file                       |
      | src/Orders/OrderService.cs |
    When the trace is measured
    Then the semantic tool ratio is at least 60%
    And the agent reaches a relevant file within 1 step
    And semantic_ratio_all_calls is at least 0.6
    And the agent calls "aura_*"
    And the agent never calls "grep_search"

  Scenario: An agent that only lists, reads and greps has no semantic calls
    Given the trace "../testdata/index/fishing-five-file-level-calls.aura.toolcalls.json"
    Then semantic_ratio is at most 0
    And file_level_calls is at least 5

  Scenario: A taxonomy file decides what counts as semantic
    Given the trace "../testdata/index/fishing-five-file-level-calls.aura.toolcalls.json"
    And the taxonomy file "../testdata/scenarios/indexed-grep.taxonomy.yaml"
    Then semantic_calls is at least 1
    And semantic_ratio is at least 0.2
    And the agent is not fishing

  Scenario: Without ground truth the target is the first edit
    Given the trace "../testdata/index/direct-search-then-edit.aura.toolcalls.json"
    Then the agent reaches a relevant file within 2 steps
    And steps_to_target is at most 2

  Scenario: The scenario file's index-usage expectations hold
    Then the "index_usage" expectations of scenario "../scenarios/add-coupon-support.yaml" pass

  Scenario: One session of an evaluation output that holds several
    Given the trace "../testdata/init/two-tasks.openhands-output.jsonl" session "auth-2"
    And the ground truth files:
      | pkg/auth/token.go |
    Then the agent reaches a relevant file within 1 step
    And the agent calls "execute_bash" at most 3 times

  Scenario: A session that records no working directory is given one
    Given the trace "../testdata/traces/toolcalls/absolute-paths-no-cwd.toolcalls.json"
    And the working directory "/root"
    And the ground truth files:
      | pkg/auth/token.go |
    Then the agent reaches a relevant file within 1 step
    And recall@1 is at least 1
