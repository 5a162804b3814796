Feature: The order and the arguments of tool calls
  A run is judged by which calls came in which order: an index search
  before the first read, no edit before a read of that file, the tests
  after the edit, and no failing call run again and again.

  Scenario: The agent searches, reads, edits and then tests
    Given the trace "../testdata/examples/fix-token-expiry.claude.jsonl"
    Then the agent calls "class:semantic" before "category:file_read"
    And every "class:edit" call comes after a "category:file_read" call
    And the agent's calls match in_order:
      | class:semantic     |
      | category:file_read |
      | class:edit         |
      | Bash               |
    And at most 0 calls fail

  Scenario: A run that repeats a failing test stays within one retry only if it stops
    Given the trace "../testdata/examples/fix-discount-retry-loop.toolcalls.json"
    Then the agent's calls match superset:
      | Grep |
      | Edit |
    And at most 3 calls fail
    And no failing call is retried more than 2 times in a row

  Scenario: The scenario file's trajectory expectations hold
    Then the scenario "../scenarios/trajectory-fix-token-expiry.yaml" passes
