// What `tideline init NAME` writes: a small runbook (read a service, check it is READY, one change
// with its undo, a wait, a last change that a test can make fail, an output) and a runbook test file
// whose cases pass under `tideline test` as written: a success, a rollback caused by a fault, and a
// refusal. Plain text with placeholders, so what an author starts from reads as it is written.
// `\${{` below is a literal `${{` (a runbook expression), escaped from the template literal.

export interface InitTemplateValues {
  /** The runbook's name (already checked against the runbook name rule). */
  name: string;
  /** The runbook's file name, as the test file names it (relative to the test file). */
  runbookFile: string;
  /** The `$schema` reference of the runbook, relative to where it is written. */
  runbookSchema: string;
  /** The `$schema` reference of the test file, relative to where it is written. */
  testSchema: string;
  /** The test file as the user would pass it to `tideline test`. */
  testPath: string;
}

const RUNBOOK = `# yaml-language-server: $schema=<<RUNBOOK_SCHEMA>>
# Its tests are in <<NAME>>.test.yaml, next to this file.
apiVersion: tideline/v1
name: <<NAME>>
description: >-
  Enable the connection pooler of a READY service, wait until its endpoint is up, and tag the
  service PROD. If a step after the pooler fails (or the run is cancelled), the pooler is disabled
  again.
inputs:
  project_id:
    type: string
    description: The project of the service.
  service_id:
    type: string
    description: The service to change.
  ready_timeout:
    type: duration
    description: How long the service may take to be READY again.
    default: 30m
    min: 1m
    max: 2h
steps:
  - id: current
    name: Read the service
    call: service.get
    with:
      project_id: '\${{ inputs.project_id }}'
      service_id: '\${{ inputs.service_id }}'

  - id: check_ready
    name: Check that the service is READY
    assert: "\${{ steps.current.output.status == 'READY' }}"
    message: 'the service is \${{ steps.current.output.status }}, not READY; change only a READY service'

  - id: pooler
    name: Enable the connection pooler
    call: service.enablePooler
    with:
      project_id: '\${{ inputs.project_id }}'
      service_id: '\${{ inputs.service_id }}'
    # The undo: runs (newest first) when a later step fails or the run is cancelled.
    compensate:
      - id: disable_pooler
        name: Disable the connection pooler again
        call: service.disablePooler
        with:
          project_id: '\${{ inputs.project_id }}'
          service_id: '\${{ inputs.service_id }}'
      - id: ready_again
        name: Wait until READY without the pooler
        wait: service.get
        with:
          project_id: '\${{ inputs.project_id }}'
          service_id: '\${{ inputs.service_id }}'
        until: "\${{ result.status == 'READY' }}"
        timeout: 30m

  - id: ready
    name: Wait until READY with the pooler endpoint
    wait: service.get
    with:
      project_id: '\${{ inputs.project_id }}'
      service_id: '\${{ inputs.service_id }}'
    until: >-
      \${{ result.status == 'READY' && has(result.connection_pooler)
          && has(result.connection_pooler.endpoint) }}
    failIf: "\${{ result.status in ['UNSTABLE', 'DELETING', 'DELETED'] }}"
    timeout: '\${{ inputs.ready_timeout }}'

  - id: prod
    name: Tag the service PROD
    call: service.setEnvironment
    with:
      project_id: '\${{ inputs.project_id }}'
      service_id: '\${{ inputs.service_id }}'
      environment: PROD

outputs:
  pooler_host:
    value: '\${{ steps.ready.output.connection_pooler.endpoint.host }}'
    description: The host to connect to through the pooler.
`;

const TESTS = `# yaml-language-server: $schema=<<TEST_SCHEMA>>
# Cases for <<RUNBOOK_FILE>>, run with:
#   tideline test <<TEST_PATH>>
# Each case gets a fresh local cloud holding what \`cloud:\` lists; \`expect:\` says what must
# hold when the run ends.
cases:
  - name: enables the pooler of a READY service and tags it PROD
    runbook: <<RUNBOOK_FILE>>
    cloud:
      services:
        - { name: shop } # READY, DEV, 1000 millicores unless given
    inputs:
      project_id: \${{ cloud.project_id }}
      service_id: \${{ cloud.services.shop.id }}
    expect:
      status: succeeded
      steps: { pooler: done, ready: done, prod: done }
      calls: { service.enablePooler: 1, service.setEnvironment: 1, service.disablePooler: 0 }
      cloud:
        services:
          shop: { status: READY, environment: PROD, pooler: true }

  - name: a tag that keeps failing rolls back and disables the pooler again
    runbook: <<RUNBOOK_FILE>>
    cloud:
      services:
        - { name: shop }
    inputs:
      project_id: \${{ cloud.project_id }}
      service_id: \${{ cloud.services.shop.id }}
    faults:
      # Every setEnvironment answers 429 with Retry-After: 0, so the step spends its attempts at
      # once, fails, and the run undoes the pooler step.
      - { operation: service.setEnvironment, kind: rateLimit, retryAfterSeconds: 0 }
    expect:
      status: failed
      failure: { step: prod }
      steps: { pooler: compensated, ready: done, prod: failed }
      calls: { service.enablePooler: 1, service.disablePooler: 1 }
      cloud:
        services:
          shop: { status: READY, environment: DEV, pooler: false }

  - name: a PAUSED service is refused before anything changes
    runbook: <<RUNBOOK_FILE>>
    cloud:
      services:
        - { name: shop, status: PAUSED }
    inputs:
      project_id: \${{ cloud.project_id }}
      service_id: \${{ cloud.services.shop.id }}
    expect:
      status: failed
      failure: { step: check_ready, message: 'is PAUSED, not READY' }
      calls: { service.enablePooler: 0 }
      cloud:
        services:
          shop: { status: PAUSED, pooler: false }
`;

function fill(template: string, values: InitTemplateValues): string {
  return template
    .replaceAll('<<NAME>>', values.name)
    .replaceAll('<<RUNBOOK_FILE>>', values.runbookFile)
    .replaceAll('<<RUNBOOK_SCHEMA>>', values.runbookSchema)
    .replaceAll('<<TEST_SCHEMA>>', values.testSchema)
    .replaceAll('<<TEST_PATH>>', values.testPath);
}

export function runbookTemplate(values: InitTemplateValues): string {
  return fill(RUNBOOK, values);
}

export function runbookTestTemplate(values: InitTemplateValues): string {
  return fill(TESTS, values);
}

/** What the test template's cases show, in order, for the command's report. */
export const TEMPLATE_CASES = ['a success', 'a rollback after a fault', 'a refusal'] as const;
