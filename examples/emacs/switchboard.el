;;; switchboard.el --- Mail, chat and more from a switchboard host  -*- lexical-binding: t; -*-

;; A client of the switchboard JSON-RPC host built on Emacs's own jsonrpc.el (the library under
;; eglot), which speaks `Content-Length:' framing; the host detects it from the first bytes.
;;
;;   (switchboard-start)              ; or (switchboard-start "--backend" "memory")
;;   M-x switchboard-inbox            ; RET on a conversation opens its thread
;;   M-x switchboard-chat             ; a room's messages as they arrive; `s' sends
;;   M-x switchboard-agenda           ; days with events and weather (--plugins with the weather plugin)
;;
;; `switchboard-command' names the program (default: `switchboard' on PATH, see scripts/install).

;;; Code:

(require 'cl-lib)
(require 'jsonrpc)
(require 'parse-time)

(defgroup switchboard nil "A client of the switchboard JSON-RPC host." :group 'comm)

(defcustom switchboard-command '("switchboard" "serve")
  "The program that serves switchboard on stdio, with its arguments."
  :type '(repeat string))

(defvar switchboard--connection nil "The running host's `jsonrpc-process-connection'.")

(defvar switchboard--chat-rooms nil
  "Room ids with a subscription: (ROOM-ID . SUBSCRIPTION-ID).")

(defvar switchboard--sends 0
  "How many messages this session sent, for unique client message ids.")

;;;; The connection

(defun switchboard-start (&rest arguments)
  "Start the host with ARGUMENTS after `switchboard-command'.
Answer the connection."
  (interactive)
  (switchboard-stop)
  (setq switchboard--connection
        (make-instance
         'jsonrpc-process-connection
         :name "switchboard"
         :process (lambda ()
                    (make-process :name "switchboard" :command (append switchboard-command arguments)
                                  :connection-type 'pipe :coding 'utf-8-emacs-unix :noquery t
                                  :stderr (get-buffer-create "*switchboard stderr*")))
         :notification-dispatcher #'switchboard--notification
         :request-dispatcher #'ignore)))

(defun switchboard-stop ()
  "End the host's input and wait for it to finish what is in flight and exit.
Answer its exit status."
  (interactive)
  (let ((process (and switchboard--connection (jsonrpc--process switchboard--connection))))
    (setq switchboard--connection nil switchboard--chat-rooms nil)
    (when process
      (when (process-live-p process)
        (process-send-eof process)
        (with-timeout (30 (delete-process process))
          (while (process-live-p process) (accept-process-output process 1))))
      (process-exit-status process))))

(defun switchboard-call (method &optional params)
  "The result of METHOD (a string) with PARAMS (a plist), waiting for it.
An error answer signals `jsonrpc-error' as `jsonrpc-request' does.

Not `jsonrpc-request' itself: on Emacs 28 it throws out of the process
filter when the answer arrives, and messages read in the same chunk (a
notification right behind the answer) stay unprocessed until the host
writes again.  Waiting on `jsonrpc-async-request' keeps the filter whole."
  (unless switchboard--connection (switchboard-start))
  (let (done result failure)
    (jsonrpc-async-request switchboard--connection (intern method) (or params (make-hash-table)) :timeout 60
                           :success-fn (lambda (value) (setq done t result value))
                           :error-fn (lambda (error) (setq done t failure error))
                           :timeout-fn (lambda () (setq done t failure '(:code -32000 :message "no answer"))))
    (while (not done) (accept-process-output nil 1))
    (when failure
      (signal 'jsonrpc-error `((jsonrpc-error-code . ,(plist-get failure :code))
                               (jsonrpc-error-message . ,(plist-get failure :message))
                               (jsonrpc-error-data . ,(plist-get failure :data)))))
    result))

(defun switchboard--notification (_connection method params)
  "Show the host's notification METHOD with PARAMS where it belongs."
  (pcase method
    ('chat.message (switchboard--chat-insert (plist-get params :message)))
    ('chat.messageState (switchboard--chat-state params))))

;;;; The inbox and threads

(defun switchboard-inbox (&optional limit)
  "List the inbox's LIMIT (default 20) newest conversations.
In the buffer *switchboard inbox*; RET opens the thread at point."
  (interactive)
  (let ((page (switchboard-call "inbox.list" (list :limit (or limit 20)))))
    (with-current-buffer (get-buffer-create "*switchboard inbox*")
      (let ((inhibit-read-only t))
        (erase-buffer)
        (cl-loop for item across (plist-get page :items)
                 for latest = (plist-get item :latest)
                 do (insert (propertize (format "%s  %-36s %s (%d)\n"
                                                (plist-get latest :date) (plist-get latest :from)
                                                (plist-get item :subject) (plist-get item :messageCount))
                                        'switchboard-thread (plist-get item :threadId))))
        (goto-char (point-min)))
      (switchboard-list-mode)
      (current-buffer))))

(defun switchboard-open-thread (thread-id)
  "Show the thread THREAD-ID (at point in the inbox) in *switchboard thread*."
  (interactive (list (get-text-property (point) 'switchboard-thread)))
  (let ((thread (switchboard-call "mail.thread" (list :threadId thread-id))))
    (with-current-buffer (get-buffer-create "*switchboard thread*")
      (let ((inhibit-read-only t))
        (erase-buffer)
        (insert (plist-get thread :subject) "\n\n")
        (cl-loop for message across (plist-get thread :messages)
                 do (insert (format "From: %s\nDate: %s\nSubject: %s\n\n%s\n\n"
                                    (plist-get message :from) (plist-get message :date)
                                    (plist-get message :subject) (plist-get message :text))))
        (goto-char (point-min)))
      (special-mode)
      (current-buffer))))

(defvar switchboard-list-mode-map
  (let ((map (make-sparse-keymap)))
    (define-key map (kbd "RET") #'switchboard-open-thread)
    map))

(define-derived-mode switchboard-list-mode special-mode "Switchboard"
  "The inbox: RET opens the thread at point.")

;;;; The agenda with weather

(defun switchboard-agenda (from to &optional time-zone place)
  "Show the days FROM to TO (YYYY-MM-DD) in TIME-ZONE with events and weather.
Each day has its events and PLACE's forecast.  Calls weather.agenda, a tool
of the weather plugin (start the host with --plugins), which reads
calendar.agenda back from the host."
  (interactive "sFrom (YYYY-MM-DD): \nsTo (YYYY-MM-DD): ")
  (let ((agenda (switchboard-call "weather.agenda"
                                  (append (list :from from :to to)
                                          (and time-zone (list :timeZone time-zone))
                                          (and place (list :place place))))))
    (with-current-buffer (get-buffer-create "*switchboard agenda*")
      (let ((inhibit-read-only t))
        (erase-buffer)
        (cl-loop for day across (plist-get agenda :days)
                 for forecast = (plist-get day :forecast)
                 do (insert (if (consp forecast)
                                (format "%s  %s, %d to %d °C\n" (plist-get day :date) (plist-get forecast :conditions)
                                        (round (plist-get forecast :lowC)) (round (plist-get forecast :highC)))
                              ;; Beyond the forecast's horizon (16 days), or no data: the reason says which.
                              (format "%s  no forecast (%s)\n" (plist-get day :date) (plist-get day :reason))))
                 do (cl-loop for event across (plist-get day :events)
                             do (insert (format "  %s  %s\n"
                                                (cond ((eq t (plist-get event :showWithoutTime)) "all day")
                                                      ((eq t (plist-get event :continuing)) "cont.")
                                                      ;; The time in the agenda's zone, not the event's own.
                                                      (t (format-time-string
                                                          "%H:%M" (parse-iso8601-time-string (plist-get event :startsAt))
                                                          (plist-get agenda :timeZone))))
                                                (plist-get event :title)))))
        (goto-char (point-min)))
      (special-mode)
      (current-buffer))))

;;;; Chat

(defun switchboard--chat-buffer (room-id)
  "The buffer showing ROOM-ID's messages."
  (get-buffer-create (format "*switchboard chat %s*" room-id)))

(defun switchboard-chat (room-id)
  "Show ROOM-ID's latest messages, then each new one as the host pushes it.
New messages come from chat.subscribe."
  (interactive "sRoom: ")
  (let ((history (switchboard-call "chat.history" (list :roomId room-id :limit 10))))
    (with-current-buffer (switchboard--chat-buffer room-id)
      (let ((inhibit-read-only t)) (erase-buffer))
      (special-mode)
      (local-set-key (kbd "s") (lambda (text) (interactive "sMessage: ") (switchboard-chat-send room-id text))))
    (cl-loop for message across (reverse (plist-get history :items))
             do (switchboard--chat-insert message))
    (let ((subscription (switchboard-call "chat.subscribe" (list :roomId room-id))))
      (push (cons room-id (plist-get subscription :subscriptionId)) switchboard--chat-rooms))
    (switchboard--chat-buffer room-id)))

(defun switchboard-chat-send (room-id text)
  "Send TEXT to ROOM-ID; the line shows `pending' until the host confirms it."
  (cl-incf switchboard--sends)
  (let* ((client-id (format "emacs-%d-%d" (emacs-pid) switchboard--sends))
         (answer (switchboard-call "chat.send" (list :roomId room-id :text text :clientMessageId client-id))))
    (plist-get answer :message)))

(defun switchboard--chat-insert (message)
  "Append MESSAGE to its room's buffer."
  (with-current-buffer (switchboard--chat-buffer (plist-get message :roomId))
    (let ((inhibit-read-only t)
          (line (format "%s <%s> %s" (plist-get message :sentAt) (plist-get message :senderId)
                        (plist-get message :text))))
      (save-excursion
        (goto-char (point-max))
        (insert (propertize (concat line "\n") 'switchboard-message (plist-get message :id)))))))

(defun switchboard--chat-state (params)
  "Note in the room's buffer what became of a send (chat.messageState PARAMS)."
  (with-current-buffer (switchboard--chat-buffer (plist-get params :roomId))
    (let ((inhibit-read-only t))
      (save-excursion
        (goto-char (point-max))
        (insert (format "-- %s %s\n" (plist-get params :clientMessageId) (plist-get params :state)))))))

(provide 'switchboard)
;;; switchboard.el ends here
