/**
 * Upload a binary from the browser: pick a file and a target; the file is hashed here, sent in
 * parts with a progress bar, and verified by the server. An upload cut short (a reload, a lost
 * connection) is listed with the file to pick again; only the parts the server lacks are sent.
 */
import { Alert, Button, FileInput, Group, Paper, Progress, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMemo, useState } from 'react';
import { ApiErrorAlert } from '../../ui/ApiError';
import { AnchorLink } from '../../ui/AnchorLink';
import { unfinishedUploads, type UnfinishedUpload } from './upload-resume';
import { useBinaryUpload, type UploadProgress } from './useBinaryUpload';

const MiB = 1024 * 1024;
const mib = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;

export function BinaryUpload({ artifactVersionPrn }: { artifactVersionPrn: string }) {
  const { progress, start, cancel } = useBinaryUpload(artifactVersionPrn);
  // Read again as the upload moves: a finished upload is forgotten, a new one remembered.
  const unfinished = useMemo(() => unfinishedUploads(artifactVersionPrn), [artifactVersionPrn, progress.phase]);
  const [target, setTarget] = useState(() => unfinished[0]?.target ?? '');
  const [file, setFile] = useState<File | null>(null);
  const busy = progress.phase === 'hashing' || progress.phase === 'uploading' || progress.phase === 'verifying';
  const resumeFrom = unfinished.find((u) => u.target === target.trim());
  return (
    <Paper withBorder p="sm">
      <Stack
        gap="xs"
        component="form"
        aria-label="Upload a binary"
        onSubmit={(e) => {
          e.preventDefault();
          if (file) void start(file, target.trim(), resumeFrom);
        }}
      >
        <Title order={2} size="h4">
          Upload a binary
        </Title>
        {!busy && unfinished.map((u) => (
          <ResumeNotice key={u.target} upload={u} />
        ))}
        <TextInput label="Target" placeholder="aarch64-unknown-linux-gnu" value={target} onChange={(e) => setTarget(e.currentTarget.value)} required disabled={busy} />
        <FileInput label="File" value={file} onChange={setFile} required disabled={busy} clearable />
        <Group>
          <Button type="submit" loading={busy} disabled={!file}>
            {resumeFrom ? 'Resume upload' : 'Upload'}
          </Button>
          {busy && (
            <Button variant="default" onClick={cancel}>
              Cancel
            </Button>
          )}
        </Group>
        <UploadStatus progress={progress} />
      </Stack>
    </Paper>
  );
}

function ResumeNotice({ upload }: { upload: UnfinishedUpload }) {
  return (
    <Alert color="yellow" title="Unfinished upload" data-testid="unfinished-upload">
      <Text size="sm">
        {upload.fileName} ({mib(upload.fileSize)}) for {upload.target} was not finished (binary{' '}
        <AnchorLink to="/binaries/$prn" params={{ prn: upload.binaryPrn }}>
          {upload.binaryPrn.slice(-12)}
        </AnchorLink>
        ). Pick the same file with target {upload.target} to resume: the parts the server holds are not sent again.
      </Text>
    </Alert>
  );
}

function UploadStatus({ progress }: { progress: UploadProgress }) {
  if (progress.phase === 'idle') return null;
  if (progress.phase === 'failed') return <ApiErrorAlert error={progress.error} title="The upload stopped" />;
  const total = Math.max(progress.totalBytes, 1);
  const percent = progress.phase === 'hashing' || progress.phase === 'uploading' ? Math.round((progress.bytes / total) * 100) : 100;
  const label =
    progress.phase === 'hashing'
      ? `Hashing: ${mib(progress.bytes)} of ${mib(progress.totalBytes)}`
      : progress.phase === 'uploading'
        ? `Uploading: ${progress.partsHeld} of ${progress.partsTotal} parts (${mib(progress.bytes)} of ${mib(progress.totalBytes)})${progress.partsSkipped ? `, ${progress.partsSkipped} already held` : ''}`
        : progress.phase === 'verifying'
          ? `The server is verifying the bytes (${progress.state})`
          : `Done: the binary is ${progress.state}`;
  return (
    <Stack gap={4}>
      <Progress value={percent} aria-label="Upload progress" data-testid="upload-progress" data-phase={progress.phase} animated={progress.phase !== 'done'} />
      <Text size="sm" data-testid="upload-status" aria-live="polite">
        {label}
      </Text>
      {progress.binary && (
        <Text size="sm">
          <AnchorLink to="/binaries/$prn" params={{ prn: progress.binary.prn }}>
            Open the binary
          </AnchorLink>
        </Text>
      )}
    </Stack>
  );
}
